import type { Contact } from '@switchboard/sdk';

/**
 * Caller-ID names by phone, from the directory (newest first: the first contact with a number
 * names it), rebuilt only when the directory changes.
 */
export class CallerIdNames {
  #contacts: Contact[] | null = null;
  #map = new Map<string, string>();

  of(contacts: Contact[] | null): ReadonlyMap<string, string> {
    if (contacts !== this.#contacts) {
      const map = new Map<string, string>();
      for (const c of contacts ?? []) if (c.name && !map.has(c.phone)) map.set(c.phone, c.name);
      this.#contacts = contacts;
      this.#map = map;
    }
    return this.#map;
  }
}
