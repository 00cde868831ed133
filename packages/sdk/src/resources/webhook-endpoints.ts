import { pathSegment } from '../http.ts';
import type { RequestOptions, Transport, WriteRequestOptions } from '../http.ts';
import type {
  CreateWebhookEndpointInput,
  DeletedWebhookEndpoint,
  ListPage,
  ListParams,
  RecoverWebhookEventsInput,
  SendTestEventInput,
  UpdateWebhookEndpointInput,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookRecovery,
} from '../types.ts';

function pageQuery(params: ListParams | undefined): Record<string, string | number | undefined> {
  return { limit: params?.limit, starting_after: params?.startingAfter };
}

/** `client.webhookEndpoints`: where events are POSTed, their secrets and their delivery logs. */
export class WebhookEndpoints {
  readonly #http: Transport;

  constructor(http: Transport) {
    this.#http = http;
  }

  /** `POST /v1/webhook_endpoints`. Besides rotation, only this answer carries `secret`. */
  async create(
    input: CreateWebhookEndpointInput,
    options?: WriteRequestOptions,
  ): Promise<WebhookEndpoint> {
    return this.#http.request({ method: 'POST', path: '/webhook_endpoints', body: input }, options);
  }

  /** `GET /v1/webhook_endpoints`: one page, newest first. */
  async list(params?: ListParams, options?: RequestOptions): Promise<ListPage<WebhookEndpoint>> {
    return this.#http.request(
      { method: 'GET', path: '/webhook_endpoints', query: pageQuery(params) },
      options,
    );
  }

  /** `GET /v1/webhook_endpoints/{id}` (without its secret). */
  async retrieve(id: string, options?: RequestOptions): Promise<WebhookEndpoint> {
    return this.#http.request(
      { method: 'GET', path: `/webhook_endpoints/${pathSegment(id)}` },
      options,
    );
  }

  /** `POST /v1/webhook_endpoints/{id}`: changes only the fields given. */
  async update(
    id: string,
    input: UpdateWebhookEndpointInput,
    options?: WriteRequestOptions,
  ): Promise<WebhookEndpoint> {
    return this.#http.request(
      { method: 'POST', path: `/webhook_endpoints/${pathSegment(id)}`, body: input },
      options,
    );
  }

  /** `DELETE /v1/webhook_endpoints/{id}`: no further deliveries; the delivery log stays. */
  async del(id: string, options?: RequestOptions): Promise<DeletedWebhookEndpoint> {
    return this.#http.request(
      { method: 'DELETE', path: `/webhook_endpoints/${pathSegment(id)}` },
      options,
    );
  }

  /**
   * `POST /v1/webhook_endpoints/{id}/rotate_secret`: resolves with the new secret. The old one
   * keeps signing alongside it for 24 hours, so receivers can switch without dropping deliveries.
   */
  async rotateSecret(id: string, options?: WriteRequestOptions): Promise<WebhookEndpoint> {
    return this.#http.request(
      { method: 'POST', path: `/webhook_endpoints/${pathSegment(id)}/rotate_secret` },
      options,
    );
  }

  /** `GET /v1/webhook_endpoints/{id}/deliveries`: the delivery log, newest first, with attempts. */
  async listDeliveries(
    id: string,
    params?: ListParams,
    options?: RequestOptions,
  ): Promise<ListPage<WebhookDelivery>> {
    return this.#http.request(
      {
        method: 'GET',
        path: `/webhook_endpoints/${pathSegment(id)}/deliveries`,
        query: pageQuery(params),
      },
      options,
    );
  }

  /** `POST …/deliveries/{deliveryId}/retry`: sends that delivery again now, same `evt_` id. */
  async retryDelivery(
    id: string,
    deliveryId: string,
    options?: WriteRequestOptions,
  ): Promise<WebhookDelivery> {
    return this.#http.request(
      {
        method: 'POST',
        path: `/webhook_endpoints/${pathSegment(id)}/deliveries/${pathSegment(deliveryId)}/retry`,
      },
      options,
    );
  }

  /** `POST /v1/webhook_endpoints/{id}/recover`: redelivers every subscribed event since `since`. */
  async recover(
    id: string,
    input: RecoverWebhookEventsInput,
    options?: WriteRequestOptions,
  ): Promise<WebhookRecovery> {
    const since = input.since instanceof Date ? input.since.toISOString() : input.since;
    return this.#http.request(
      { method: 'POST', path: `/webhook_endpoints/${pathSegment(id)}/recover`, body: { since } },
      options,
    );
  }

  /** `POST /v1/webhook_endpoints/{id}/test`: a signed sample event of `type`, to this endpoint. */
  async sendTestEvent(
    id: string,
    input: SendTestEventInput = {},
    options?: WriteRequestOptions,
  ): Promise<WebhookDelivery> {
    return this.#http.request(
      { method: 'POST', path: `/webhook_endpoints/${pathSegment(id)}/test`, body: input },
      options,
    );
  }
}
