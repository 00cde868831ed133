import type { DeliveryReceipt, InboundText } from '../carrier.ts';

/** What a provider posts to `/v1/carriers/{id}/status|inbound`, as the route sees it. */
export interface CallbackRequest<Secret> {
  secret: Secret;
  /** The public settings of the connection. */
  settings: unknown;
  /** The URL the provider called, on SWITCHBOARD_PUBLIC_URL; null when that is not set. */
  url: string | null;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, as signed. */
  body: string;
  now: number;
}

/** A verified callback's contents: a receipt, an inbound text, or neither (an event of no interest). */
export interface VerifiedCallback {
  receipt(kind: 'status' | 'inbound'): DeliveryReceipt | null;
  inbound(kind: 'status' | 'inbound'): InboundText | null;
}

/** How one provider's callbacks are verified and read (twilio/twilio-webhook.ts, telnyx/). */
export interface ProviderCallback<Secret> {
  /** The callback's contents once its signature verifies; null when it does not. */
  verify(request: CallbackRequest<Secret>): VerifiedCallback | null;
  /** The Authorization the provider's media URLs want (its own origin only), if any. */
  mediaAuthorization(secret: Secret, settings: unknown): string | undefined;
  /** What a handled callback is answered with. */
  answer: { contentType: string; body: string };
}
