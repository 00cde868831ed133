import { newId } from '../lib/ids.ts';
import { ApiError, validationError } from '../domain/errors.ts';
import { mediaContentType } from '../domain/media.ts';
import { requireNoNul } from '../domain/text-rules.ts';
import {
  MAX_RECIPIENTS,
  checkBody,
  checkMediaUrls,
  checkRecipients,
  requireE164,
} from '../domain/message-rules.ts';
import { presentMessage, type MediaView, type MessageView } from '../presenters/message.ts';
import {
  deactivateParticipants,
  findConversation,
  listParticipants,
  upsertParticipants,
  type ConversationRow,
} from '../store/repos/conversations.ts';
import type { MessageRow, RecipientRow } from '../store/repos/messages.ts';
import { optedOutAmong } from '../store/repos/opt-outs.ts';
import { decideGroupSend, decideRecipient, optOutApplies } from '../domain/recipient-policy.ts';
import {
  storeOneToOneUnlessOptedOut,
  storeOutboundMessage,
} from '../store/repos/outbound-messages.ts';
import { findPhoneNumber } from '../store/repos/phone-numbers.ts';
import type { WriteTx } from '../store/engine/write-queue.ts';
import { scopeOf, type Actor, type CommandDeps } from './context.ts';
import { findOrCreateDirectConversation, createGroupConversation } from './conversations.ts';
import { scoped } from '../store/scope.ts';
import { requireMediaRoute } from './media-route.ts';
import { outboundMedia } from './outbound-media.ts';

/** Input of `POST /v1/messages` (spec 2.2). */
export interface SendMessageInput {
  from: string;
  to?: string | string[] | undefined;
  body?: string | undefined;
  mediaUrls?: string[] | undefined;
  senderName?: string | undefined;
  conversationId?: string | undefined;
  addParticipants?: string[] | undefined;
  removeParticipants?: string[] | undefined;
}

/** Options for sends the platform makes itself. */
export interface SendOptions {
  /** STOP/START confirmations and HELP replies are never blocked by the opt-out itself. */
  bypassOptOut?: boolean;
  /**
   * Called once the send has sent its last statement, by a caller whose unit sends
   * nothing after it (the registry's `sendMessage` passes `tx.sentAll`): a pipelining
   * lane then runs the batch's next unit while this one waits for its answer.
   */
  sent?: () => void;
}

const OPTED_OUT = 'recipient_opted_out';

/**
 * Checks that `from` is the account's number. A number is never removed or moved
 * to another account once provisioned, so its holder is remembered for the life
 * of the store: one query fewer on every send. Only holders are remembered, so a
 * number provisioned later (by the CLI, say) is found at once.
 */
async function requireAccountNumber(tx: WriteTx, actor: Actor, from: string): Promise<void> {
  requireE164(from, 'from');
  const memoKey = `number-holder:${actor.mode}:${from}`;
  let holder = tx.memo.get(memoKey) as string | undefined;
  if (holder === undefined) {
    const number = await findPhoneNumber(tx.db, actor.mode, from);
    if (number) {
      const accountId = number.account_id;
      tx.afterCommit(() => tx.memo.set(memoKey, accountId));
    }
    holder = number?.account_id;
  }
  if (holder !== actor.accountId) {
    throw validationError(
      'from',
      `from must be a number provisioned on this account in ${actor.mode} mode.`,
    );
  }
}

/** Applies add/remove to an existing group and returns who receives this send. */
async function continueConversation(
  tx: WriteTx,
  actor: Actor,
  input: SendMessageInput,
  now: number,
): Promise<{ conversation: ConversationRow; recipients: string[] }> {
  if (input.to !== undefined) {
    throw validationError('to', 'Omit to when sending with conversationId.');
  }
  const conversation = await findConversation(scoped(tx.db, actor), input.conversationId!);
  if (!conversation) {
    throw validationError('conversationId', `No such conversation: '${input.conversationId}'.`);
  }
  if (conversation.account_phone !== input.from) {
    throw validationError(
      'from',
      `from must be ${conversation.account_phone}, the number of this conversation.`,
    );
  }
  const adds = input.addParticipants ?? [];
  const removes = input.removeParticipants ?? [];
  if ((adds.length > 0 || removes.length > 0) && conversation.kind !== 'group') {
    throw validationError(
      adds.length > 0 ? 'addParticipants' : 'removeParticipants',
      'Participants can change only in a group conversation.',
    );
  }
  adds.forEach((phone, i) => {
    requireE164(phone, `addParticipants[${i}]`);
    if (phone === input.from)
      throw validationError(`addParticipants[${i}]`, 'A participant must differ from from.');
  });
  removes.forEach((phone, i) => {
    requireE164(phone, `removeParticipants[${i}]`);
    // Both at once says two things; which one was meant is not ours to guess.
    if (adds.includes(phone)) {
      throw validationError(
        `removeParticipants[${i}]`,
        `${phone} is both added and removed; name it in one of the two.`,
      );
    }
  });
  await deactivateParticipants(tx.db, conversation.id, removes);
  await upsertParticipants(tx.db, conversation.id, adds, now);
  const recipients = (await listParticipants(tx.db, conversation.id)).map((p) => p.phone);
  if (recipients.length > MAX_RECIPIENTS) {
    throw validationError(
      'addParticipants',
      `A group may have at most ${MAX_RECIPIENTS} participants.`,
    );
  }
  if (recipients.length === 0) {
    // Removing the last participants is a mistake in this request; a group that emptied
    // because everyone texted STOP is the group opt-out rule (docs/behaviour.md#groups).
    if (removes.length > 0) {
      throw validationError('removeParticipants', 'The conversation has no participants left.');
    }
    throw new ApiError(
      OPTED_OUT,
      'Every participant of this conversation has opted out of messages from this account.',
      { param: 'conversationId' },
    );
  }
  return { conversation, recipients };
}

/** What a new outbound message stores, as `outboundRows` builds it. */
export interface OutboundFields {
  id: string;
  now: number;
  actor: Actor;
  conversationId: string;
  from: string;
  /** Its recipients (one, or a group's active participants). */
  recipients: string[];
  isGroup: boolean;
  body: string;
  mediaUrls: string[];
  /** The media as listed, when known better than by extension (outbound-media.ts). */
  media?: MediaView[] | undefined;
  segments: number;
  senderName: string | null;
  /** The platform's reply to a keyword, which no opt-out blocks (sendMessage's bypassOptOut). */
  autoReply?: boolean;
}

/**
 * The rows of a new outbound message: the message, queued, and one recipient per number,
 * each a carrier submission due now (the dispatcher takes it from there).
 */
export function outboundRows(f: OutboundFields): {
  row: MessageRow;
  recipientRows: RecipientRow[];
} {
  const recipientRows: RecipientRow[] = f.recipients.toSorted().map((phone) => ({
    message_id: f.id,
    phone,
    status: 'queued',
    failure_reason: null,
    carrier_ref: null,
    updated_at: f.now,
    run_at: f.now,
    attempts: 0,
    last_error: null,
  }));
  const row: MessageRow = {
    id: f.id,
    account_id: f.actor.accountId,
    mode: f.actor.mode,
    conversation_id: f.conversationId,
    direction: 'outbound',
    from_phone: f.from,
    to_json: JSON.stringify(f.isGroup ? f.recipients : f.recipients[0]),
    is_group: f.isGroup ? 1 : 0,
    body: f.body,
    media_json: JSON.stringify(
      f.media ?? f.mediaUrls.map((url) => ({ url, contentType: mediaContentType(url) })),
    ),
    segments: f.segments,
    status: 'queued',
    failure_reason: null,
    sender_name: f.senderName,
    contact_id: null,
    auto_reply: f.autoReply ? 1 : 0,
    created_at: f.now,
    updated_at: f.now,
  };
  return { row, recipientRows };
}

/**
 * Accepts an outbound SMS or MMS: validates it against every rule of spec 4.1,
 * resolves (or opens) its conversation, drops opted-out group participants,
 * stores the message with one queued submission per recipient, and answers
 * with the message as `queued`. The carrier dispatcher takes it from there.
 */
export async function sendMessage(
  tx: WriteTx,
  actor: Actor,
  input: SendMessageInput,
  deps: CommandDeps,
  options: SendOptions = {},
): Promise<MessageView> {
  const mediaUrls = checkMediaUrls(input.mediaUrls);
  const segments = checkBody(input.body, mediaUrls.length > 0);
  requireNoNul(input.senderName, 'senderName');
  await requireAccountNumber(tx, actor, input.from);
  if (actor.mode === 'live' && mediaUrls.length > 0) await requireMediaRoute(tx, input.from);
  const now = deps.clock.now();

  let conversation: ConversationRow;
  let recipients: string[];
  let isGroup: boolean;
  if (input.conversationId !== undefined) {
    ({ conversation, recipients } = await continueConversation(tx, actor, input, now));
    isGroup = conversation.kind === 'group';
  } else {
    if (input.addParticipants !== undefined || input.removeParticipants !== undefined) {
      const param = input.addParticipants !== undefined ? 'addParticipants' : 'removeParticipants';
      throw validationError(param, `${param} needs conversationId.`);
    }
    if (input.to === undefined) throw validationError('to', 'Missing required field to.');
    recipients = checkRecipients(input.to, input.from);
    isGroup = recipients.length > 1;
    conversation = isGroup
      ? await createGroupConversation(tx, actor, input.from, recipients, now)
      : await findOrCreateDirectConversation(tx, actor, input.from, recipients[0]!, now);
  }

  const optedOutParam = input.conversationId !== undefined ? 'conversationId' : 'to';
  const autoReply = options.bypassOptOut === true;
  // Who may receive it is decided in domain/recipient-policy.ts. A group's participants are
  // read first; a one-to-one send's one recipient is read as the message is stored, in one
  // round trip on PostgreSQL (storeOneToOneUnlessOptedOut).
  const checkAsStored = optOutApplies(autoReply) && !isGroup;
  if (optOutApplies(autoReply) && isGroup) {
    const optedOut = await optedOutAmong(scoped(tx.db, actor), recipients);
    const verdict = decideGroupSend(recipients, optedOut, autoReply);
    if (verdict.dropped.length > 0) {
      recipients = verdict.receive;
      // A dropped participant leaves the group, as texting STOP would have made them; otherwise a
      // later START would silently put them back into a group the business never saw them in.
      await deactivateParticipants(tx.db, conversation.id, verdict.dropped);
    }
    if (verdict.refused) {
      throw new ApiError(
        OPTED_OUT,
        'Every participant has opted out of messages from this account.',
        { param: optedOutParam },
      );
    }
  }

  const { row, recipientRows } = outboundRows({
    id: newId('msg', now),
    now,
    actor,
    conversationId: conversation.id,
    from: input.from,
    recipients,
    isGroup,
    body: input.body ?? '',
    mediaUrls,
    media: mediaUrls.length > 0 ? await outboundMedia(tx, actor.accountId, mediaUrls) : undefined,
    segments,
    senderName: input.senderName?.trim() || null,
    autoReply,
  });
  if (checkAsStored) {
    // Not a group: one recipient (checkRecipients, or a direct thread's one participant).
    const { optedOut } = await storeOneToOneUnlessOptedOut(
      tx.db,
      row,
      recipientRows[0]!,
      options.sent,
    );
    // Thrown after the rows were written (on PostgreSQL): failing the unit undoes them.
    if (decideRecipient('accept', { optedOut, autoReply, group: false }) === 'refuse') {
      throw new ApiError(
        OPTED_OUT,
        `${recipients[0]} has opted out of messages from this account (they texted STOP).`,
        { param: optedOutParam },
      );
    }
  } else {
    await storeOutboundMessage(tx.db, row, recipientRows);
    options.sent?.();
  }
  const message = presentMessage(row, recipientRows);
  tx.publish('outbound.queued', { mode: actor.mode });
  tx.publish('message.created', { ...scopeOf(actor), message });
  return message;
}
