import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ReceiptSchedule, type OwedReceipt } from '../../src/carriers/sandbox/receipt-schedule.ts';

function owed(carrierRef: string, status: OwedReceipt['status'], dueAt: number): OwedReceipt {
  return { carrierRef, status, failureReason: null, dueAt, unknownSince: null };
}

const labels = (receipts: OwedReceipt[]) => receipts.map((r) => `${r.carrierRef}:${r.status}`);

describe('the sandbox carrier’s schedule of owed receipts', () => {
  test('receipts leave in the order they fall due, and those due together in the order they were owed', () => {
    const schedule = new ReceiptSchedule();
    schedule.add(owed('a', 'sent', 100));
    schedule.add(owed('a', 'delivered', 200));
    schedule.add(owed('b', 'sent', 100));
    schedule.add(owed('c', 'failed', 50));
    assert.equal(schedule.earliest, 50);
    assert.deepEqual(labels(schedule.takeDue(150, 10)), ['c:failed', 'a:sent', 'b:sent']);
    assert.deepEqual(labels(schedule.takeDue(150, 10)), []);
    assert.deepEqual(labels(schedule.takeDue(200, 10)), ['a:delivered']);
    assert.equal(schedule.earliest, Infinity);
  });

  test('a receipt put back falls due after the ones already due at its time, before later ones', () => {
    const schedule = new ReceiptSchedule();
    schedule.add(owed('a', 'sent', 10));
    schedule.add(owed('b', 'sent', 10));
    schedule.add(owed('c', 'sent', 30));
    const [first] = schedule.takeDue(10, 1);
    schedule.putBack({ ...first!, dueAt: 10 });
    assert.deepEqual(labels(schedule.takeDue(30, 10)), ['b:sent', 'a:sent', 'c:sent']);
  });

  test('no more than the limit is taken at once', () => {
    const schedule = new ReceiptSchedule();
    for (let i = 0; i < 5; i++) schedule.add(owed(`r${i}`, 'sent', i));
    assert.equal(schedule.takeDue(10, 2).length, 2);
    assert.equal(schedule.size, 3);
    assert.equal(schedule.takeDue(10, 10).length, 3);
  });

  test('a reference is held while any of its receipts is owed or being reported', () => {
    const schedule = new ReceiptSchedule();
    schedule.add(owed('a', 'sent', 1));
    schedule.add(owed('a', 'delivered', 2));
    const [sent] = schedule.takeDue(1, 10);
    schedule.done(sent!);
    assert.equal(schedule.holds('a'), true, 'its delivered receipt is still owed');
    const [delivered] = schedule.takeDue(2, 10);
    assert.equal(schedule.holds('a'), true, 'taken but not yet reported');
    schedule.done(delivered!);
    assert.equal(schedule.holds('a'), false);
  });

  test('the receipts due by a time are counted without taking them', () => {
    const schedule = new ReceiptSchedule();
    for (let i = 0; i < 10; i++) schedule.add(owed(`r${i}`, 'sent', i * 10));
    assert.equal(schedule.dueBy(-1), 0);
    assert.equal(schedule.dueBy(0), 1);
    assert.equal(schedule.dueBy(45), 5);
    assert.equal(schedule.dueBy(1000), 10);
    schedule.takeDue(45, 3);
    assert.equal(schedule.dueBy(45), 2, 'taken receipts are no longer owed');
    assert.equal(schedule.size, 7);
  });

  test('thousands of receipts taken one round at a time all leave, in order', () => {
    const schedule = new ReceiptSchedule();
    for (let i = 0; i < 5000; i++) schedule.add(owed(`r${i}`, 'sent', i));
    const seen: number[] = [];
    for (let round = 0; round < 100 && schedule.size > 0; round++) {
      for (const r of schedule.takeDue(10_000, 200)) seen.push(r.dueAt);
    }
    assert.equal(seen.length, 5000);
    assert.ok(seen.every((at, i) => at === i));
  });
});
