import { Agent } from 'node:https';
import type { FastifyInstance } from 'fastify';
import webpush from 'web-push';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  shouldNotify,
  type NotifiableEvent,
} from '../domain/notification-rules.ts';
import type { Mode } from '../domain/modes.ts';
import type { MessageView } from '../presenters/message.ts';
import type { NoteView } from '../presenters/note.ts';
import { statesOf } from '../store/repos/conversation-team.ts';
import { anyPushSubscription, findPushKeys, subscriptionsOfAccount } from '../store/repos/push.ts';

/** What a push carries to the service worker, which shows it (packages/web/public/sw.js). */
export interface PushPayload {
  title: string;
  body: string;
  /** The page a click opens. */
  url: string;
  /** Notifications of one thread replace each other. */
  tag: string;
}

interface Scoped {
  accountId: string;
  mode: Mode;
}

// A contact address is asked of senders by the push services; none is configured.
const VAPID_SUBJECT = 'mailto:notifications@switchboard.invalid';
const PUSH_TTL_SECONDS = 300;

/**
 * Sends Web Push notifications for an account's new texts, calls, mentions and
 * assignments to every browser its users subscribed, as each user's settings allow
 * (docs/behaviour.md#notifications). It listens for those changes only once a subscription
 * exists, so a service nobody subscribed to pays nothing for it.
 */
export function attachPushNotifier(app: FastifyInstance, options: { ca?: string } = {}): void {
  const { store, secrets, logger, changes } = app.deps;
  const agent = options.ca ? new Agent({ ca: options.ca, keepAlive: true }) : undefined;
  let listening = false;

  const send = async (scope: Scoped, event: NotifiableEvent, payload: PushPayload) => {
    const keys = await findPushKeys(store.db, scope.accountId);
    if (!keys) return;
    const vapidDetails = {
      subject: VAPID_SUBJECT,
      publicKey: keys.public_key,
      privateKey: secrets.open(keys.private_key_sealed),
    };
    const subscriptions = await subscriptionsOfAccount(store.db, scope.accountId);
    const text = JSON.stringify(payload);
    await Promise.all(
      subscriptions.map(async (s) => {
        const settings = {
          texts: s.texts ?? DEFAULT_NOTIFICATION_SETTINGS.texts,
          calls: s.calls === null ? DEFAULT_NOTIFICATION_SETTINGS.calls : s.calls === 1,
        };
        if (!shouldNotify(s.user_id, settings, event)) return;
        const subscription = { endpoint: s.endpoint, keys: { p256dh: s.p256dh, auth: s.auth } };
        try {
          await webpush.sendNotification(subscription, text, {
            vapidDetails,
            TTL: PUSH_TTL_SECONDS,
            ...(agent ? { agent } : {}),
          });
        } catch (error) {
          const status = (error as { statusCode?: number }).statusCode;
          // 404 and 410: the browser unsubscribed; anything else may pass.
          if (status === 404 || status === 410) {
            await changes.run('forgetPushSubscription', { endpoint: s.endpoint });
          } else {
            logger.warn({ err: error, status }, 'web push not delivered');
          }
        }
      }),
    );
  };
  const safely = (work: Promise<void>) =>
    work.catch((error: unknown) => logger.warn({ err: error }, 'web push failed'));
  const inThread = (mode: Mode, conversationId: string) =>
    `/app/inbox/${conversationId}${mode === 'live' ? '?mode=live' : ''}`;

  const onMessage = (p: Scoped & { message: MessageView; contactName: string | null }) => {
    if (p.message.direction !== 'inbound') return;
    const { conversationId } = p.message;
    void safely(
      statesOf(store.db, [conversationId]).then(([state]) =>
        send(
          p,
          { kind: 'text', assigneeId: state?.assignee_id ?? null },
          {
            title: p.contactName ?? p.message.from,
            body: p.message.body || 'Sent a picture',
            url: inThread(p.mode, conversationId),
            tag: conversationId,
          },
        ),
      ),
    );
  };
  const onNote = (p: Scoped & { note: NoteView }) => {
    if (p.note.mentions.length === 0) return;
    void safely(
      send(
        p,
        { kind: 'mention', userIds: p.note.mentions },
        {
          title: `${p.note.author.name} mentioned you`,
          body: p.note.body,
          url: inThread(p.mode, p.note.conversationId),
          tag: `note-${p.note.id}`,
        },
      ),
    );
  };
  const onUpdate = (
    p: Scoped & {
      conversationId: string;
      assigneeId: string | null;
      by: { id: string; name: string } | null;
    },
  ) => {
    if (!p.assigneeId || !p.by) return;
    void safely(
      send(
        p,
        { kind: 'assignment', assigneeId: p.assigneeId, byUserId: p.by.id },
        {
          title: `${p.by.name} assigned you a conversation`,
          body: 'Open it to reply.',
          url: inThread(p.mode, p.conversationId),
          tag: `assign-${p.conversationId}`,
        },
      ),
    );
  };
  const onCall = (
    p: Scoped & { call: { id: string; direction: string; from: string; status: string } } & {
      contactName: string | null;
    },
  ) => {
    if (p.call.direction !== 'inbound') return;
    void safely(
      send(
        p,
        { kind: 'call' },
        {
          title: p.call.status === 'missed' ? 'Missed call' : 'Incoming call',
          body: p.contactName ?? p.call.from,
          url: '/app/calls',
          tag: `call-${p.call.id}`,
        },
      ),
    );
  };

  const listen = () => {
    if (listening) return;
    listening = true;
    store.signals.on('message.created', onMessage);
    store.signals.on('note.created', onNote);
    store.signals.on('conversation.updated', onUpdate);
    store.signals.on('call.created', onCall);
  };
  store.signals.on('push.subscribed', listen);
  anyPushSubscription(store.db).then(
    (any) => any && listen(),
    (error: unknown) => logger.warn({ err: error }, 'web push subscriptions not read'),
  );
  app.addHook('onClose', async () => {
    agent?.destroy();
    store.signals.off('push.subscribed', listen);
    store.signals.off('message.created', onMessage);
    store.signals.off('note.created', onNote);
    store.signals.off('conversation.updated', onUpdate);
    store.signals.off('call.created', onCall);
  });
}
