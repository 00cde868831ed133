import type { DeliveryReceipt } from '../carrier.ts';

/** A receipt the sandbox owes, and when it falls due. */
export interface OwedReceipt extends DeliveryReceipt {
  dueAt: number;
  /** When it was first answered `unknown` (its reference not recorded yet), or null. */
  unknownSince: number | null;
}

/**
 * The receipts the sandbox carrier owes, in the order they fall due, and which
 * references they belong to. Receipts of one reference fall due in the order of
 * their timeline (`sent` before `delivered`), and ones due at the same time leave
 * in the order they were added, so a reference's receipts are reported in order.
 * Every step of the sandbox is the same delay, so a new receipt almost always
 * falls due last: adding is an append, taking is from the front.
 */
export class ReceiptSchedule {
  #items: OwedReceipt[] = [];
  /** Index of the first item not taken yet; the array is compacted now and then. */
  #head = 0;
  readonly #held = new Map<string, number>();

  /** Receipts owed. */
  get size(): number {
    return this.#items.length - this.#head;
  }

  /** When the earliest owed receipt falls due, or Infinity. */
  get earliest(): number {
    return this.size > 0 ? this.#items[this.#head]!.dueAt : Infinity;
  }

  /** How many owed receipts are due by `now` (reported late, if any are). */
  dueBy(now: number): number {
    const items = this.#items;
    let low = this.#head;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (items[mid]!.dueAt <= now) low = mid + 1;
      else high = mid;
    }
    return low - this.#head;
  }

  /** True while a receipt of `carrierRef` is owed or being reported (see `done`). */
  holds(carrierRef: string): boolean {
    return this.#held.has(carrierRef);
  }

  /** Owes `receipt`; its reference is held until `done` is called for it. */
  add(receipt: OwedReceipt): void {
    this.#held.set(receipt.carrierRef, (this.#held.get(receipt.carrierRef) ?? 0) + 1);
    this.#insert(receipt);
  }

  /** Owes a receipt taken earlier again (to report later); its reference stays held. */
  putBack(receipt: OwedReceipt): void {
    this.#insert(receipt);
  }

  /** Takes up to `limit` receipts due by `now`, earliest first. Their references stay held. */
  takeDue(now: number, limit: number): OwedReceipt[] {
    const taken: OwedReceipt[] = [];
    while (taken.length < limit && this.#head < this.#items.length) {
      const next = this.#items[this.#head]!;
      if (next.dueAt > now) break;
      taken.push(next);
      this.#head++;
    }
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return taken;
  }

  /** A taken receipt was reported (or given up): its reference is released. */
  done(receipt: OwedReceipt): void {
    const count = (this.#held.get(receipt.carrierRef) ?? 1) - 1;
    if (count > 0) this.#held.set(receipt.carrierRef, count);
    else this.#held.delete(receipt.carrierRef);
  }

  #insert(receipt: OwedReceipt): void {
    const items = this.#items;
    if (items.length === this.#head || items.at(-1)!.dueAt <= receipt.dueAt) {
      items.push(receipt);
      return;
    }
    // After every item due no later than it: equal times keep the order they were added in.
    let low = this.#head;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (items[mid]!.dueAt <= receipt.dueAt) low = mid + 1;
      else high = mid;
    }
    items.splice(low, 0, receipt);
  }
}
