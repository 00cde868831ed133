import { pathSegment } from '../http.ts';
import type { RequestOptions, Transport, WriteRequestOptions } from '../http.ts';
import type { Message, SendMessageInput } from '../types.ts';

/** `client.messages`: send SMS/MMS (one-to-one or group) and look up their status. */
export class Messages {
  readonly #http: Transport;

  constructor(http: Transport) {
    this.#http = http;
  }

  /**
   * `POST /v1/messages`. Resolves once the message is accepted (`queued`), not delivered; a
   * retried attempt reuses the Idempotency-Key, so a message is never sent twice by the client.
   */
  async send(input: SendMessageInput, options?: WriteRequestOptions): Promise<Message> {
    return this.#http.request({ method: 'POST', path: '/messages', body: input }, options);
  }

  /** `GET /v1/messages/{id}`: the message with its current status (and group participants). */
  async retrieve(id: string, options?: RequestOptions): Promise<Message> {
    return this.#http.request({ method: 'GET', path: `/messages/${pathSegment(id)}` }, options);
  }
}
