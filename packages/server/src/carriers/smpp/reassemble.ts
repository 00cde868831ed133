// Joins the parts of a concatenated text from a handset. Parts of one text share their
// source, destination, reference and total; they may arrive in any order, and a part
// delivered twice (SMPP is at-least-once) counts once.
import type { Clock } from '../../lib/clock.ts';
import { decodeText, type Alphabet, type InboundPart } from './inbound.ts';

/** A whole text from a handset. */
export interface ReassembledText {
  source: string;
  destination: string;
  text: string;
  /** The parts it was made of, in order (one for a text that was never split). */
  parts: InboundPart[];
}

function keyOf(part: InboundPart): string {
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

interface Pending {
  parts: (InboundPart | undefined)[];
  received: number;
  firstAt: number;
}

/** Collects parts until their text is whole; incomplete texts are dropped after `maxAgeMs`. */
export class Reassembler {
  readonly #pending = new Map<string, Pending>();
  readonly #clock: Clock;
  readonly #maxAgeMs: number;
  readonly #maxPending: number;

  constructor(options: { clock: Clock; maxAgeMs?: number; maxPending?: number }) {
    this.#clock = options.clock;
    this.#maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
    this.#maxPending = options.maxPending ?? 10_000;
  }

  /** Texts waiting for parts. */
  get pending(): number {
    return this.#pending.size;
  }

  /** Adds a part; returns the whole text when this part completes it (a single text at once). */
  add(part: InboundPart): ReassembledText | null {
    if (part.concat === null || part.concat.total === 1) return whole([part]);
    this.sweep();
    const key = keyOf(part);
    let entry = this.#pending.get(key);
    if (!entry) {
      if (this.#pending.size >= this.#maxPending) {
        // Bounded: the oldest incomplete text makes room (Map iterates in insertion order).
        const oldest = this.#pending.keys().next().value;
        if (oldest !== undefined) this.#pending.delete(oldest);
      }
      entry = { parts: new Array(part.concat.total), received: 0, firstAt: this.#clock.now() };
      this.#pending.set(key, entry);
    }
    const index = part.concat.seq - 1;
    if (entry.parts[index] === undefined) entry.received++;
    entry.parts[index] = part;
    if (entry.received < part.concat.total) return null;
    this.#pending.delete(key);
    return whole(entry.parts as InboundPart[]);
  }

  /** Drops incomplete texts older than the age limit; returns how many. */
  sweep(): number {
    const cutoff = this.#clock.now() - this.#maxAgeMs;
    let dropped = 0;
    for (const [key, entry] of this.#pending) {
      if (entry.firstAt > cutoff) continue;
      this.#pending.delete(key);
      dropped++;
    }
    return dropped;
  }
}

/**
 * Reassembles a batch of parts, in any order: the whole texts (in the order they were
 * completed) and the parts still waiting for others.
 */
export function reassemble(parts: readonly InboundPart[]): {
  complete: ReassembledText[];
  pending: InboundPart[];
} {
  const reassembler = new Reassembler({ clock: { now: () => 0 }, maxPending: Infinity });
  const complete: ReassembledText[] = [];
  const used = new Set<InboundPart>();
  for (const part of parts) {
    const text = reassembler.add(part);
    if (text) {
      complete.push(text);
      for (const p of text.parts) used.add(p);
    }
  }
  const pending = parts.filter((part) => !used.has(part) && !isDuplicateOfComplete(part, complete));
  return { complete, pending };
}

/** A second copy of a part whose text is already complete is not left pending. */
function isDuplicateOfComplete(part: InboundPart, complete: ReassembledText[]): boolean {
  if (part.concat === null) return false;
  const key = keyOf(part);
  return complete.some((text) => text.parts.length > 1 && keyOf(text.parts[0]!) === key);
}
