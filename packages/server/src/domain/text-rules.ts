import { validationError } from './errors.ts';

/**
 * Refuses the NUL character (U+0000) in text the service keeps, naming `param`.
 * PostgreSQL's text cannot hold it (the write would fail as a 500) while SQLite's can;
 * refused on both, the API answers alike whichever engine stores it.
 */
export function requireNoNul(value: string | null | undefined, param: string): void {
  if (value?.includes('\u0000')) {
    throw validationError(param, `${param} must not contain the NUL character (U+0000).`);
  }
}
