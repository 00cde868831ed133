// The public API of @switchboard/sdk. Everything here uses only web platform APIs (fetch,
// AbortController, Web Crypto), so it runs unchanged in Node and in browsers.

export {
  buildDeepLink,
  parseDeepLink,
  DEEP_LINK_ACTIONS,
  DEEP_LINK_BODY_MAX,
  DEFAULT_DEEP_LINK_SCHEME,
} from './deep-links.ts';
export type {
  CallDeepLink,
  DeepLink,
  DeepLinkAction,
  DeepLinkInput,
  DeepLinkOptions,
  SmsDeepLink,
} from './deep-links.ts';

export { E164_PATTERN, isE164 } from './phone.ts';

export {
  SEGMENT_LIMITS,
  SMS_ENCODINGS,
  countSegments,
  isGsm7,
  segmentCount,
  splitSegments,
} from './segments.ts';
export type { SegmentCount, SmsEncoding } from './segments.ts';

export { FAILURE_REASONS, MESSAGE_STATUSES } from './types.ts';
export type * from './types.ts';

export {
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_VERIFICATION_REASONS,
  WebhookVerificationError,
  signWebhookPayload,
  standardWebhooksSignature,
  verifyWebhook,
} from './webhooks/verify.ts';
export type {
  SignWebhookOptions,
  StandardWebhooksSignOptions,
  VerifyWebhookOptions,
  WebhookVerificationReason,
} from './webhooks/verify.ts';

export { DEFAULT_BASE_URL, Switchboard } from './client.ts';
export type { SwitchboardOptions } from './client.ts';
export { MAX_RETRY_AFTER_SECONDS, SDK_VERSION } from './http.ts';
export type { FetchLike, RequestOptions, WriteRequestOptions } from './http.ts';
export type { Contacts } from './resources/contacts.ts';
export type { Messages } from './resources/messages.ts';
export type { Sandbox } from './resources/sandbox.ts';
export type { WebhookEndpoints } from './resources/webhook-endpoints.ts';
export {
  ApiServerError,
  AuthenticationError,
  ConnectionError,
  IdempotencyConflictError,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  RecipientOptedOutError,
  SwitchboardError,
  TimeoutError,
  ValidationError,
} from './errors.ts';
export type { SwitchboardErrorInit } from './errors.ts';
