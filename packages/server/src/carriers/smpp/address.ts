// Phone numbers between E.164 (`+15550100`) and SMPP addresses: international numbers go
// as TON 1 (international) / NPI 1 (ISDN, E.164) without the '+'; an alphanumeric sender
// goes as TON 5 / NPI 0.
import { NPI_ISDN, TON_INTERNATIONAL } from './pdu.ts';

const TON_ALPHANUMERIC = 5;

export interface SmppAddress {
  ton: number;
  npi: number;
  addr: string;
}

/** The SMPP address of an E.164 number or an alphanumeric sender id. */
export function toSmppAddress(number: string): SmppAddress {
  const digits = number.startsWith('+') ? number.slice(1) : number;
  if (/^\d+$/.test(digits)) return { ton: TON_INTERNATIONAL, npi: NPI_ISDN, addr: digits };
  return { ton: TON_ALPHANUMERIC, npi: 0, addr: number };
}

/** The number an SMSC gives: E.164 when it says international digits, else as written. */
export function fromSmppAddress(addr: string, ton: number): string {
  if (ton === TON_INTERNATIONAL && /^\d+$/.test(addr)) return `+${addr}`;
  return addr;
}
