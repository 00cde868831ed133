// SMS segment counting, in one place: the server sets each message's `segments` with it and
// clients count with it while people type, so the two can never disagree. Pure string
// arithmetic, no platform APIs, so it runs anywhere the SDK does.

/** The two character sets an SMS body can travel in. */
export const SMS_ENCODINGS = ['GSM-7', 'UCS-2'] as const;

/** One of {@link SMS_ENCODINGS}. */
export type SmsEncoding = (typeof SMS_ENCODINGS)[number];

/**
 * How a carrier sees a text: its encoding, how many SMS parts it takes, and its length in
 * that encoding's units (septets for GSM-7, UTF-16 code units for UCS-2).
 */
export interface SegmentCount {
  encoding: SmsEncoding;
  segments: number;
  units: number;
}

/**
 * Units that fit in one SMS: `single` when the text is sent whole, `multipart` per part once
 * it is split, because each part then gives 6 bytes to the concatenation header.
 */
export const SEGMENT_LIMITS = {
  'GSM-7': { single: 160, multipart: 153 },
  'UCS-2': { single: 70, multipart: 67 },
} as const satisfies Record<SmsEncoding, { single: number; multipart: number }>;

// GSM 03.38 default alphabet in table order, without 0x1B (the escape to the extension table).
const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';

// Extension table: each is sent as escape + code, so it costs two septets.
const GSM7_EXTENSION = '\f^{}\\[~]|€';

const GSM7_SEPTETS: ReadonlyMap<string, number> = new Map([
  ...Array.from(GSM7_BASIC, (char) => [char, 1] as const),
  ...Array.from(GSM7_EXTENSION, (char) => [char, 2] as const),
]);

/** A text as a list of indivisible characters, each with its cost in the chosen encoding. */
interface Measured {
  encoding: SmsEncoding;
  chars: string[];
  costs: number[];
  units: number;
}

function measure(text: string): Measured {
  // Code points, not code units: a surrogate pair must stay one indivisible character.
  const chars = Array.from(text);
  const septets: number[] = [];
  for (const char of chars) {
    const cost = GSM7_SEPTETS.get(char);
    if (cost === undefined) {
      // One character outside GSM-7 forces the whole message into UCS-2.
      const costs = chars.map((c) => c.length);
      return { encoding: 'UCS-2', chars, costs, units: text.length };
    }
    septets.push(cost);
  }
  const units = septets.reduce((sum, cost) => sum + cost, 0);
  return { encoding: 'GSM-7', chars, costs: septets, units };
}

/** Index into `chars` at which each part begins. */
function partStarts(measured: Measured): number[] {
  if (measured.units === 0) return [];
  const limits = SEGMENT_LIMITS[measured.encoding];
  if (measured.units <= limits.single) return [0];
  const starts = [0];
  let used = 0;
  measured.costs.forEach((cost, index) => {
    // A character that does not fit whole opens the next part, leaving a unit unused:
    // a split escape pair or surrogate pair would arrive as garbage.
    if (used + cost > limits.multipart) {
      starts.push(index);
      used = 0;
    }
    used += cost;
  });
  return starts;
}

/** True when every character of `text` is in the GSM 03.38 default alphabet or its extension table. */
export function isGsm7(text: string): boolean {
  return measure(text).encoding === 'GSM-7';
}

/**
 * Counts SMS parts the way carriers do (GSM-7 160/153, UCS-2 70/67, escape and surrogate
 * pairs never split). An empty text is 0 segments; whether a body-less MMS bills as one is the caller's call.
 */
export function countSegments(text: string): SegmentCount {
  const measured = measure(text);
  return {
    encoding: measured.encoding,
    segments: partStarts(measured).length,
    units: measured.units,
  };
}

/** The number of SMS parts `text` takes; shorthand for `countSegments(text).segments`. */
export function segmentCount(text: string): number {
  return countSegments(text).segments;
}

/** Splits `text` into the parts a carrier would send, in order; joined, they give back `text`. */
export function splitSegments(text: string): string[] {
  const measured = measure(text);
  const starts = partStarts(measured);
  return starts.map((start, i) => measured.chars.slice(start, starts[i + 1]).join(''));
}
