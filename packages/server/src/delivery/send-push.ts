import type { Dispatcher } from 'undici';
import webpush from 'web-push';
import { postWebhook, type PostResult } from './post-webhook.ts';

/** A browser's push subscription, as stored. */
export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** The account's VAPID keys, the private half opened. */
export interface VapidKeys {
  subject: string;
  publicKey: string;
  privateKey: string;
}

const PUSH_TTL_SECONDS = 300;
/** The bound on one push, connecting to the last byte of the answer. */
export const PUSH_TIMEOUT_MS = 10_000;

/**
 * Encrypts and signs one push with web-push, and POSTs it through `dispatcher`: the
 * guarded one webhooks use, so a subscription's endpoint is held to the same rules as
 * a webhook URL on every connection (no private address unless allowed, bounded time).
 * Never throws: what came of it is the result, as for a webhook attempt.
 */
export async function sendPush(options: {
  target: PushTarget;
  payload: string;
  vapid: VapidKeys;
  dispatcher: Dispatcher;
  timeoutMs?: number;
}): Promise<PostResult> {
  const { target, payload, vapid, dispatcher } = options;
  let details: webpush.RequestDetails;
  try {
    details = webpush.generateRequestDetails(
      { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
      payload,
      { vapidDetails: vapid, TTL: PUSH_TTL_SECONDS },
    );
  } catch (error) {
    // Keys the browser gave that do not encrypt: nothing was sent.
    return {
      error: 'other',
      errorMessage: String(error).slice(0, 300),
      excerpt: null,
      durationMs: 0,
    };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) {
    // undici counts the body itself.
    if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
  }
  return postWebhook({
    url: details.endpoint,
    body: details.body ?? '',
    headers,
    dispatcher,
    timeoutMs: options.timeoutMs ?? PUSH_TIMEOUT_MS,
  });
}
