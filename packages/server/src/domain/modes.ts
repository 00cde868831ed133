/** Test and live are separate worlds: nothing made in one is visible in the other. */
export const MODES = ['test', 'live'] as const;
export type Mode = (typeof MODES)[number];

/** Narrows a string to a Mode. */
export function isMode(value: string): value is Mode {
  return (MODES as readonly string[]).includes(value);
}
