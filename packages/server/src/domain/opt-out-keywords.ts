/** What an inbound keyword asks for: opt out, opt back in, or get the help reply. */
export const KEYWORD_KINDS = ['stop', 'start', 'help'] as const;
export type KeywordKind = (typeof KEYWORD_KINDS)[number];

/** Keywords that opt the sender out of every number on the account. */
export const STOP_KEYWORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;

/** Keywords that opt a previously opted-out sender back in. */
export const START_KEYWORDS = ['START', 'UNSTOP', 'YES'] as const;

/** Keywords that ask for the business's help reply and change nothing. */
export const HELP_KEYWORDS = ['HELP', 'INFO'] as const;

const KIND_BY_KEYWORD: ReadonlyMap<string, KeywordKind> = new Map([
  ...STOP_KEYWORDS.map((keyword) => [keyword, 'stop'] as const),
  ...START_KEYWORDS.map((keyword) => [keyword, 'start'] as const),
  ...HELP_KEYWORDS.map((keyword) => [keyword, 'help'] as const),
]);

// Whitespace may sit between the word and its punctuation ("STOP !"), so both are peeled together.
const TRAILING_PUNCTUATION = /[\s\p{P}]+$/u;

// Plain ASCII letters only: toUpperCase() would turn lookalikes such as "ſ" or "ı" into S or I.
const PLAIN_WORD = /^[A-Za-z]+$/;

/**
 * The keyword the whole message is, or null. Matching ignores case, surrounding whitespace
 * and trailing punctuation; leading punctuation or any other word means it is not a keyword.
 */
export function classifyKeyword(body: string): KeywordKind | null {
  const word = body.trim().replace(TRAILING_PUNCTUATION, '');
  if (!PLAIN_WORD.test(word)) return null;
  return KIND_BY_KEYWORD.get(word.toUpperCase()) ?? null;
}

/** Sent once to a number that has just opted out; it must say how to opt back in. */
export const STOP_CONFIRMATION =
  'You have successfully been unsubscribed. You will not receive any more messages from this number. Reply START to resubscribe.';

/** Sent once to a number that has just opted back in; it must say how to opt out again. */
export const START_CONFIRMATION =
  'You have successfully been re-subscribed to messages from this number. Reply HELP for help. Reply STOP to unsubscribe. Msg&data rates may apply.';

/**
 * The help reply used when the account has not written its own, in the carrier-required shape:
 * who is sending, how to opt out and back in, and that rates may apply.
 */
export function defaultHelpReply(accountName: string): string {
  const name = accountName.trim();
  const text = 'Reply STOP to unsubscribe or START to resubscribe. Msg&data rates may apply.';
  return name === '' ? text : `${name}: ${text}`;
}
