// Joins the parts of a concatenated text from a handset. Parts of one text share their
// source, destination, reference and total; they may arrive in any order, and a part
// delivered twice (SMPP is at-least-once) counts once. Parts wait for each other in the
// database, not here (smpp-carrier.ts), so a restart between two loses neither.
import { decodeText, type Alphabet, type InboundPart } from './inbound.ts';

/** A whole text from a handset. */
export interface ReassembledText {
  source: string;
  destination: string;
  text: string;
  /** The parts it was made of, in order (one for a text that was never split). */
  parts: InboundPart[];
}

/** What names a part's text among a connection's: parts with the same key are joined. */
export function textKeyOf(part: InboundPart): string {
  const { reference, total } = part.concat!;
  return JSON.stringify([part.source, part.destination, reference, total]);
}

/**
 * The text of parts in order. Parts in one alphabet are joined as octets before decoding,
 * so a character a sender split across two parts (an escape, a surrogate pair) survives.
 */
function join(parts: InboundPart[]): string {
  const alphabet: Alphabet = parts[0]!.alphabet;
  if (parts.every((part) => part.alphabet === alphabet)) {
    return decodeText(Buffer.concat(parts.map((part) => part.payload)), alphabet);
  }
  return parts.map((part) => part.text).join('');
}

function whole(parts: InboundPart[]): ReassembledText {
  const first = parts[0]!;
  return { source: first.source, destination: first.destination, text: join(parts), parts };
}

/**
 * Reassembles a batch of parts, in any order: the whole texts (in the order they were
 * completed) and the parts still waiting for others.
 */
export function reassemble(parts: readonly InboundPart[]): {
  complete: ReassembledText[];
  pending: InboundPart[];
} {
  const texts = new Map<string, { slots: (InboundPart | undefined)[]; filled: number }>();
  const complete: ReassembledText[] = [];
  const used = new Set<InboundPart>();
  for (const part of parts) {
    if (part.concat === null || part.concat.total === 1) {
      complete.push(whole([part]));
      used.add(part);
      continue;
    }
    const key = textKeyOf(part);
    let text = texts.get(key);
    if (!text) texts.set(key, (text = { slots: new Array(part.concat.total), filled: 0 }));
    if (text.slots[part.concat.seq - 1] !== undefined) continue;
    text.slots[part.concat.seq - 1] = part;
    if (++text.filled < part.concat.total) continue;
    texts.delete(key);
    const done = whole(text.slots as InboundPart[]);
    complete.push(done);
    for (const p of done.parts) used.add(p);
  }
  const pending = parts.filter((part) => !used.has(part) && !isDuplicateOfComplete(part, complete));
  return { complete, pending };
}

/** A second copy of a part whose text is already complete is not left pending. */
function isDuplicateOfComplete(part: InboundPart, complete: ReassembledText[]): boolean {
  if (part.concat === null) return false;
  const key = textKeyOf(part);
  return complete.some((text) => text.parts.length > 1 && textKeyOf(text.parts[0]!) === key);
}
