import { validationError } from './errors.ts';
import { isE164 } from './phone.ts';
import { requireNoNul } from './text-rules.ts';

// Deliberately plain: one @, no spaces, a dot in the domain. Deliverability is the mail server's business.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** True when `value` looks like an email address. */
export function isEmail(value: string): boolean {
  return EMAIL.test(value);
}

/** Checks a contact's phone (E.164), email (an address) and text, whichever are present. */
export function checkContactFields(input: {
  phone?: string | undefined;
  email?: string | null | undefined;
  name?: string | null | undefined;
  company?: string | null | undefined;
}): void {
  for (const field of ['name', 'company', 'email'] as const) requireNoNul(input[field], field);
  if (input.phone !== undefined && !isE164(input.phone)) {
    throw validationError('phone', 'phone must be an E.164 number, such as +14155550100.');
  }
  if (input.email !== undefined && input.email !== null && !isEmail(input.email)) {
    throw validationError('email', 'email must be an email address, such as ada@example.com.');
  }
}

/** Trimmed text, or null when empty or absent. */
export function optionalText(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}
