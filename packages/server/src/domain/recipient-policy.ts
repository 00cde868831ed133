// Who may receive an outbound message, against the account's opt-out list (spec 3.2 and
// 4.1 rules 3 and 4; docs/behaviour.md, "Opt-out"). The one place this rule lives: the
// send command and the dispatcher read the facts (is the number on the list, is the
// message the platform's own keyword reply) and ask here what follows from them.

/** The facts about one recipient of one outbound message. */
export interface RecipientFacts {
  /** The number is on the opt-out list of the message's account and mode. */
  optedOut: boolean;
  /** The message is the platform's own STOP/START confirmation or HELP reply. */
  autoReply: boolean;
  /** The message goes to a group conversation (else one-to-one). */
  group: boolean;
}

/**
 * When the question is asked: as the send is accepted (`accept`), or as a message queued
 * earlier is about to leave for the carrier (`dispatch`), where a STOP may have arrived
 * in between.
 */
export type PolicyStage = 'accept' | 'dispatch';

/**
 * What happens to the recipient:
 * - `deliver`: it leaves;
 * - `refuse`: the whole send is refused (`422 recipient_opted_out`), nothing is stored;
 * - `drop`: a group participant is left out of this and later sends, the rest receive it;
 * - `fail`: a send queued before the STOP fails for this recipient as `opted_out`.
 */
export type RecipientDecision = 'deliver' | 'refuse' | 'drop' | 'fail';

/** Whether the opt-out list is consulted at all: the platform's own replies always leave. */
export function optOutApplies(autoReply: boolean): boolean {
  return !autoReply;
}

/** The decision for one recipient at one stage. */
export function decideRecipient(stage: PolicyStage, facts: RecipientFacts): RecipientDecision {
  if (!optOutApplies(facts.autoReply) || !facts.optedOut) return 'deliver';
  if (stage === 'dispatch') return 'fail';
  return facts.group ? 'drop' : 'refuse';
}

/**
 * A group send after its opted-out participants are dropped: who still receives it, who
 * was dropped, and whether the send as a whole is refused (nobody is left).
 */
export function decideGroupSend(
  participants: readonly string[],
  optedOut: ReadonlySet<string>,
  autoReply: boolean,
): { receive: string[]; dropped: string[]; refused: boolean } {
  const receive: string[] = [];
  const dropped: string[] = [];
  for (const phone of participants) {
    const facts = { optedOut: optedOut.has(phone), autoReply, group: true };
    (decideRecipient('accept', facts) === 'deliver' ? receive : dropped).push(phone);
  }
  return { receive, dropped, refused: receive.length === 0 && participants.length > 0 };
}
