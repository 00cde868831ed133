// The public API of @switchboard/sdk. Everything here is pure or uses only Web Crypto, so it runs
// unchanged in Node and in browsers.

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

// API client: exported from here once `client.ts` exists (it reuses the types above).
