import type { Transport, WriteRequestOptions } from '../http.ts';
import type { Call, Message, SandboxCallInput, SandboxInboundInput } from '../types.ts';

/** `client.sandbox`: make the carrier side happen on demand. Test keys only; live keys get 404. */
export class Sandbox {
  readonly #http: Transport;

  constructor(http: Transport) {
    this.#http = http;
  }

  /**
   * `POST /v1/sandbox/inbound`: an inbound text handled exactly as a carrier's would be (threading,
   * opt-out keywords, `message.received`). Resolves with the inbound message.
   */
  async inbound(input: SandboxInboundInput, options?: WriteRequestOptions): Promise<Message> {
    return this.#http.request({ method: 'POST', path: '/sandbox/inbound', body: input }, options);
  }

  /** `POST /v1/sandbox/calls`: an ended call; emits `call.completed` or `call.missed`. */
  async call(input: SandboxCallInput, options?: WriteRequestOptions): Promise<Call> {
    return this.#http.request({ method: 'POST', path: '/sandbox/calls', body: input }, options);
  }
}
