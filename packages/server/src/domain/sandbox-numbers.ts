/**
 * Area codes used for sandbox numbers. Each gives `+1NPA5550100` to `+1NPA5550199`,
 * the range reserved for fiction, so a sandbox number can never reach a real phone.
 */
const SANDBOX_AREA_CODES = [
  '201',
  '202',
  '206',
  '212',
  '213',
  '303',
  '305',
  '312',
  '404',
  '415',
  '503',
  '512',
  '602',
  '617',
  '619',
  '646',
  '702',
  '713',
  '718',
  '720',
  '801',
  '949',
];

/** A random number in the fictional range; `random` returns a float in [0, 1). */
export function randomSandboxNumber(random: () => number = Math.random): string {
  const npa = SANDBOX_AREA_CODES[Math.floor(random() * SANDBOX_AREA_CODES.length)]!;
  const line = 100 + Math.floor(random() * 100);
  return `+1${npa}5550${line}`;
}

/** True when `phone` is in the fictional `+1NPA55501XX` range. */
export function isSandboxNumber(phone: string): boolean {
  return /^\+1[2-9]\d{2}55501\d{2}$/.test(phone);
}

/** How many sandbox numbers a new account gets. */
export const SANDBOX_NUMBERS_PER_ACCOUNT = 3;
