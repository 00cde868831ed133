import type { Mode } from '../domain/modes.ts';
import type { UserRow } from '../store/repos/users.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import type { Actor, WebhookDeps } from './context.ts';
import { addCarrier, type AddCarrierInput } from './add-carrier.ts';
import { applyCarrierReceipts } from './apply-carrier-receipts.ts';
import { storeMedia, type StoreMediaInput } from './store-media.ts';
import type { DeliveryReceipt } from '../carriers/carrier.ts';
import { createApiKey } from './create-api-key.ts';
import { pauseCarrier } from './pause-carrier.ts';
import { removeCarrier } from './remove-carrier.ts';
import { createContact, type CreateContactInput } from './create-contact.ts';
import { createUser } from './create-user.ts';
import { markConversationRead } from './mark-conversation-read.ts';
import type { TeamActor } from './team-context.ts';
import { markConversationUnread } from './mark-conversation-unread.ts';
import { setConversationStatus } from './set-conversation-status.ts';
import { assignConversation } from './assign-conversation.ts';
import { addConversationNote } from './add-conversation-note.ts';
import { savePushKeys } from './save-push-keys.ts';
import { addPushSubscription, type PushSubscriptionInput } from './add-push-subscription.ts';
import { removePushSubscription } from './remove-push-subscription.ts';
import { forgetPushSubscription } from './forget-push-subscription.ts';
import { claimPushEvent } from './claim-push-event.ts';
import { announceTyping, type TypingAnnouncement } from './announce-typing.ts';
import { updateNotificationSettings } from './update-notification-settings.ts';
import type { NotificationSettings } from '../domain/notification-rules.ts';
import { receiveMessage, type ReceiveMessageInput } from './receive-message.ts';
import { recordCall, type RecordCallInput } from './record-call.ts';
import { openCall, type OpenCallInput } from './open-call.ts';
import { endCall } from './end-call.ts';
import { sweepOpenCalls, type SweepOpenCallsInput } from './sweep-open-calls.ts';
import { announceVoiceInstance, type VoiceInstanceInput } from './announce-voice-instance.ts';
import { retireVoiceInstance } from './retire-voice-instance.ts';
import { revokeApiKey } from './revoke-api-key.ts';
import { sendMessage, type SendMessageInput } from './send-message.ts';
import { createSession } from './create-session.ts';
import { endSession } from './end-session.ts';
import { setHelpReply } from './set-help-reply.ts';
import { touchApiKey } from './touch-api-key.ts';
import { deleteContact } from './delete-contact.ts';
import { mergeContacts } from './merge-contacts.ts';
import { removeTeammate } from './remove-teammate.ts';
import { updateTeammate, type UpdateTeammateInput } from './update-teammate.ts';
import { updateContact, type UpdateContactInput } from './update-contact.ts';
import {
  createWebhookEndpoint,
  type CreateWebhookEndpointInput,
} from './webhooks/create-webhook-endpoint.ts';
import { deleteWebhookEndpoint } from './webhooks/delete-webhook-endpoint.ts';
import { recoverWebhookEvents } from './webhooks/recover-webhook-events.ts';
import { retryWebhookDelivery } from './webhooks/retry-webhook-delivery.ts';
import { sendWebhookTestEvent } from './webhooks/send-webhook-test-event.ts';
import { rotateWebhookSecret } from './webhooks/rotate-webhook-secret.ts';
import {
  updateWebhookEndpoint,
  type UpdateWebhookEndpointInput,
} from './webhooks/update-webhook-endpoint.ts';

/**
 * What every command may use besides its transaction: time, and the ports of
 * webhook commands (sealing secrets, making them, checking URLs).
 */
export type CommandContext = WebhookDeps;

/**
 * Every change the transports can ask for, by name: a command, its input (plain
 * data) and its result (plain data). This is the whole write side as the REST
 * API, the softphone's API and the tool server see it; `Changes` runs one in a
 * write transaction, in this thread or on the store thread (threads/). The
 * carrier side and the webhook worker are not here: they run where the store is.
 */
export const COMMANDS = {
  // The send is the whole unit (but for an idempotency key's record, which hides sentAll).
  sendMessage: (tx: WriteTx, c: CommandContext, i: { actor: Actor; input: SendMessageInput }) =>
    sendMessage(tx, i.actor, i.input, c, { sent: () => tx.sentAll() }),
  receiveMessage: (
    tx: WriteTx,
    c: CommandContext,
    i: { input: ReceiveMessageInput; accountId: string },
  ) => receiveMessage(tx, i.input, c, i.accountId),
  recordCall: (tx: WriteTx, c: CommandContext, i: { actor: Actor; input: RecordCallInput }) =>
    recordCall(tx, i.actor, i.input, c),
  openCall: (tx: WriteTx, c: CommandContext, i: OpenCallInput) => openCall(tx, i, c),
  endCall: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; callId: string; call: RecordCallInput },
  ) => endCall(tx, i, c),
  sweepOpenCalls: (tx: WriteTx, c: CommandContext, i: SweepOpenCallsInput) =>
    sweepOpenCalls(tx, i, c),
  announceVoiceInstance: (tx: WriteTx, c: CommandContext, i: VoiceInstanceInput) =>
    announceVoiceInstance(tx, i, c),
  retireVoiceInstance: (tx: WriteTx, _c: CommandContext, i: { runId: string }) =>
    retireVoiceInstance(tx, i),
  createContact: (tx: WriteTx, c: CommandContext, i: { actor: Actor; input: CreateContactInput }) =>
    createContact(tx, i.actor, i.input, c),
  updateContact: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; id: string; input: UpdateContactInput },
  ) => updateContact(tx, i.actor, i.id, i.input, c),
  markConversationRead: (tx: WriteTx, c: CommandContext, i: { actor: TeamActor; id: string }) =>
    markConversationRead(tx, i.actor, i.id, c),
  createWebhookEndpoint: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; input: CreateWebhookEndpointInput },
  ) => createWebhookEndpoint(tx, i.actor, i.input, c),
  updateWebhookEndpoint: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; id: string; input: UpdateWebhookEndpointInput },
  ) => updateWebhookEndpoint(tx, i.actor, i.id, i.input, c),
  deleteWebhookEndpoint: (tx: WriteTx, c: CommandContext, i: { actor: Actor; id: string }) =>
    deleteWebhookEndpoint(tx, i.actor, i.id, c),
  rotateWebhookSecret: (tx: WriteTx, c: CommandContext, i: { actor: Actor; id: string }) =>
    rotateWebhookSecret(tx, i.actor, i.id, c),
  retryWebhookDelivery: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; endpointId: string; deliveryId: string },
  ) => retryWebhookDelivery(tx, i.actor, i.endpointId, i.deliveryId, c),
  recoverWebhookEvents: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; endpointId: string; since: number },
  ) => recoverWebhookEvents(tx, i.actor, i.endpointId, i.since, c),
  sendWebhookTestEvent: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; endpointId: string; type: string },
  ) => sendWebhookTestEvent(tx, i.actor, i.endpointId, i.type, c),
  createApiKey: (tx: WriteTx, c: CommandContext, i: { accountId: string; mode: Mode }) =>
    createApiKey(tx, i, c),
  revokeApiKey: (tx: WriteTx, c: CommandContext, i: { keyId: string; accountId?: string }) =>
    revokeApiKey(tx, i, c),
  touchApiKey: (tx: WriteTx, _c: CommandContext, i: { keyId: string; at: number }) =>
    touchApiKey(tx, i.keyId, i.at),
  createUser: (tx: WriteTx, c: CommandContext, i: Parameters<typeof createUser>[1]) =>
    createUser(tx, i, c),
  setHelpReply: (tx: WriteTx, _c: CommandContext, i: { accountId: string; text: string | null }) =>
    setHelpReply(tx, i.accountId, i.text),
  createSession: (tx: WriteTx, c: CommandContext, i: { user: UserRow }) =>
    createSession(tx, i.user, c),
  endSession: (tx: WriteTx, _c: CommandContext, i: { token: string }) => endSession(tx, i.token),
  addCarrier: (tx: WriteTx, c: CommandContext, i: { accountId: string; input: AddCarrierInput }) =>
    addCarrier(tx, i.accountId, i.input, c),
  pauseCarrier: (
    tx: WriteTx,
    c: CommandContext,
    i: { accountId: string; id: string; paused: boolean },
  ) => pauseCarrier(tx, i, c),
  removeCarrier: (tx: WriteTx, c: CommandContext, i: { id: string; accountId?: string }) =>
    removeCarrier(tx, i, c),
  markConversationUnread: (tx: WriteTx, c: CommandContext, i: { actor: TeamActor; id: string }) =>
    markConversationUnread(tx, i.actor, i.id, c),
  setConversationStatus: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: TeamActor; id: string; status: string },
  ) => setConversationStatus(tx, i.actor, i.id, i.status, c),
  assignConversation: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: TeamActor; id: string; assigneeId: string | null },
  ) => assignConversation(tx, i.actor, i.id, i.assigneeId, c),
  addConversationNote: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: TeamActor; id: string; body: string },
  ) => addConversationNote(tx, i.actor, i.id, i.body, c),
  savePushKeys: (
    tx: WriteTx,
    c: CommandContext,
    i: { accountId: string; publicKey: string; privateKey: string },
  ) => savePushKeys(tx, i, c),
  addPushSubscription: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: TeamActor; subscription: PushSubscriptionInput },
  ) => addPushSubscription(tx, i.actor, i.subscription, c),
  removePushSubscription: (
    tx: WriteTx,
    _c: CommandContext,
    i: { actor: TeamActor; endpoint: string },
  ) => removePushSubscription(tx, i.actor, i.endpoint),
  updateNotificationSettings: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: TeamActor; settings: NotificationSettings },
  ) => updateNotificationSettings(tx, i.actor, i.settings, c),
  forgetPushSubscription: (tx: WriteTx, _c: CommandContext, i: { endpoint: string }) =>
    forgetPushSubscription(tx, i.endpoint),
  updateTeammate: (tx: WriteTx, c: CommandContext, i: UpdateTeammateInput) =>
    updateTeammate(tx, i, c),
  removeTeammate: (
    tx: WriteTx,
    _c: CommandContext,
    i: { accountId: string; byUserId: string; userId: string },
  ) => removeTeammate(tx, i),
  deleteContact: (tx: WriteTx, _c: CommandContext, i: { actor: Actor; id: string }) =>
    deleteContact(tx, i.actor, i.id),
  mergeContacts: (
    tx: WriteTx,
    c: CommandContext,
    i: { actor: Actor; keepId: string; duplicateId: string },
  ) => mergeContacts(tx, i.actor, i, c),
  claimPushEvent: (tx: WriteTx, c: CommandContext, i: { eventKey: string }) =>
    claimPushEvent(tx, i.eventKey, c),
  announceTyping: (tx: WriteTx, _c: CommandContext, i: TypingAnnouncement) => announceTyping(tx, i),
  applyCarrierReceipts: (
    tx: WriteTx,
    c: CommandContext,
    i: { receipts: readonly DeliveryReceipt[] },
  ) => applyCarrierReceipts(tx, i.receipts, c),
  storeMedia: (tx: WriteTx, c: CommandContext, i: StoreMediaInput) => storeMedia(tx, i, c),
} as const;

/** The name of a command of the registry. */
export type CommandName = keyof typeof COMMANDS;

/**
 * The commands whose result carries a secret shown only in it (a `whsec_` signing
 * secret, an API key, a session token): a record of their answer under an
 * idempotency key is sealed at rest (see writeIdempotently).
 */
export const RESULT_CARRIES_SECRET: ReadonlySet<CommandName> = new Set<CommandName>([
  'createWebhookEndpoint',
  'rotateWebhookSecret',
  'createApiKey',
  'createSession',
]);
/** What command `K` is given. */
export type CommandInput<K extends CommandName> = Parameters<(typeof COMMANDS)[K]>[2];
/** What command `K` answers. */
export type CommandResult<K extends CommandName> = Awaited<ReturnType<(typeof COMMANDS)[K]>>;

/** Runs command `name` inside `tx`. */
export function runCommand<K extends CommandName>(
  tx: WriteTx,
  context: CommandContext,
  name: K,
  input: CommandInput<K>,
): Promise<CommandResult<K>> {
  const command = COMMANDS[name] as unknown as (
    tx: WriteTx,
    context: CommandContext,
    input: CommandInput<K>,
  ) => Promise<CommandResult<K>>;
  return command(tx, context, input);
}
