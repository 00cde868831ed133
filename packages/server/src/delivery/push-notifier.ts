import type { FastifyInstance } from 'fastify';
import type { Agent } from 'undici';
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
import { webhookDispatcher } from './guarded-dispatcher.ts';
import { sendPush } from './send-push.ts';

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

/**
 * Sends Web Push notifications for an account's new texts, calls, mentions and
 * assignments to every browser its users subscribed, as each user's settings allow
 * (docs/behaviour.md#notifications). It listens for those changes only once a subscription
 * exists, so a service nobody subscribed to pays nothing for it.
 *
 * Every instance of the worker role hears every change (its own, and the others' through
 * the store's signal relay); each change is pushed by the one instance that claims it
 * (`claimPushEvent`), so a device gets one push per change. Pushes go through the guarded
 * dispatcher webhooks use: a push service on a private address is refused unless
 * SWITCHBOARD_WEBHOOK_ALLOW_PRIVATE is set, and each push is bounded in time.
 */
export function attachPushNotifier(app: FastifyInstance, options: { ca?: string } = {}): void {
  const { store, secrets, logger, changes, config } = app.deps;
  let dispatcher: Agent | undefined;
  let listening = false;

  const send = async (
    scope: Scoped,
    eventKey: string,
    // A text's needs a read (its assignee): made only for an account with push keys.
    eventOf: NotifiableEvent | (() => Promise<NotifiableEvent>),
    payload: PushPayload,
  ) => {
    const keys = await findPushKeys(store.db, scope.accountId);
    if (!keys) return;
    const event = typeof eventOf === 'function' ? await eventOf() : eventOf;
    const targets = (await subscriptionsOfAccount(store.db, scope.accountId)).filter((s) =>
      shouldNotify(
        s.user_id,
        {
          texts: s.texts ?? DEFAULT_NOTIFICATION_SETTINGS.texts,
          calls: s.calls === null ? DEFAULT_NOTIFICATION_SETTINGS.calls : s.calls === 1,
        },
        event,
      ),
    );
    if (targets.length === 0) return;
    // Claimed only once someone is to be told, so a change nobody hears of writes nothing.
    const { claimed } = await changes.run('claimPushEvent', { eventKey });
    if (!claimed) return;
    const vapid = {
      subject: VAPID_SUBJECT,
      publicKey: keys.public_key,
      privateKey: secrets.open(keys.private_key_sealed),
    };
    dispatcher ??= webhookDispatcher({
      allowPrivate: config.webhookAllowPrivate,
      ca: options.ca,
    });
    const text = JSON.stringify(payload);
    await Promise.all(
      targets.map(async (s) => {
        const result = await sendPush({ target: s, payload: text, vapid, dispatcher: dispatcher! });
        // 404 and 410: the browser unsubscribed; anything else may pass.
        if (result.status === 404 || result.status === 410) {
          await changes.run('forgetPushSubscription', { endpoint: s.endpoint });
        } else if (result.status === undefined || result.status >= 300) {
          const { status, error, errorMessage } = result;
          logger.warn({ status, error, errorMessage }, 'web push not delivered');
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
      send(
        p,
        `text:${p.message.id}`,
        async () => {
          const [state] = await statesOf(store.db, [conversationId]);
          return { kind: 'text', assigneeId: state?.assignee_id ?? null };
        },
        {
          title: p.contactName ?? p.message.from,
          body: p.message.body || 'Sent a picture',
          url: inThread(p.mode, conversationId),
          tag: conversationId,
        },
      ),
    );
  };
  const onNote = (p: Scoped & { note: NoteView }) => {
    if (p.note.mentions.length === 0) return;
    void safely(
      send(
        p,
        `note:${p.note.id}`,
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
      updatedAt?: number;
    },
  ) => {
    if (!p.assigneeId || !p.by) return;
    void safely(
      send(
        p,
        `assign:${p.conversationId}:${p.assigneeId}:${p.updatedAt}`,
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
        `call:${p.call.id}`,
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
    await dispatcher?.close();
    store.signals.off('push.subscribed', listen);
    store.signals.off('message.created', onMessage);
    store.signals.off('note.created', onNote);
    store.signals.off('conversation.updated', onUpdate);
    store.signals.off('call.created', onCall);
  });
}
