import { pathSegment } from '../http.ts';
import type { RequestOptions, Transport, WriteRequestOptions } from '../http.ts';
import type { Contact, CreateContactInput } from '../types.ts';

/** `client.contacts`: the shared directory that resolves caller ID. Server-side use only. */
export class Contacts {
  readonly #http: Transport;

  constructor(http: Transport) {
    this.#http = http;
  }

  /** `POST /v1/contacts`: adds a contact; its name becomes the caller ID of its number. */
  async create(input: CreateContactInput, options?: WriteRequestOptions): Promise<Contact> {
    return this.#http.request({ method: 'POST', path: '/contacts', body: input }, options);
  }

  /** `GET /v1/contacts/{id}`. */
  async retrieve(id: string, options?: RequestOptions): Promise<Contact> {
    return this.#http.request({ method: 'GET', path: `/contacts/${pathSegment(id)}` }, options);
  }
}
