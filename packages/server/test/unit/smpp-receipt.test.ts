import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  normaliseMessageId,
  parseReceipt,
  parseReceiptText,
  receiptOutcome,
  RECEIPT_STATES,
  type IdFormats,
  type Receipt,
} from '../../src/carriers/smpp/receipt.ts';
import { FAILURE_REASONS } from '../../src/domain/message-status.ts';

const TEXT =
  'id:1234567 sub:001 dlvrd:001 submit date:2401021530 done date:2401021531 stat:DELIVRD err:000 text:Hello there';
const AS_IS: IdFormats = { submit: 'text', receipt: 'text' };

function receipt(input: Parameters<typeof parseReceipt>[0], ids: IdFormats = AS_IS): Receipt {
  const result = parseReceipt(input, ids);
  assert.ok(result.ok, result.ok ? '' : result.error);
  return result.receipt;
}

describe('delivery receipts', () => {
  it('reads the Appendix B text: every field, the text to the end', () => {
    assert.deepEqual(parseReceiptText(TEXT), {
      id: '1234567',
      sub: '001',
      dlvrd: '001',
      submitDate: '2401021530',
      doneDate: '2401021531',
      stat: 'DELIVRD',
      err: '000',
      text: 'Hello there',
    });
  });

  it('reads the text in other cases, spellings and orders seen from SMSCs', () => {
    const variants = [
      'ID:1234567 SUB:001 DLVRD:001 SUBMIT DATE:2401021530 DONE DATE:2401021531 STAT:DELIVRD ERR:000 TEXT:',
      'id: 1234567 sub: 1 dlvrd: 1 submit_date: 2401021530 done_date: 2401021531 stat: delivered err: 0',
      'stat:DELIVRD id:1234567 err:000 donedate:2401021531',
      'Id:1234567,Stat:Delivrd,Err:000',
    ];
    for (const text of variants) {
      const parsed = receipt({ tlvs: {}, text });
      assert.equal(parsed.messageId, '1234567', text);
      assert.equal(parsed.state, 'DELIVRD', text);
      assert.equal(parsed.source, 'text');
    }
  });

  it('does not take words of the message text for fields', () => {
    const parsed = receipt({ tlvs: {}, text: 'id:77 stat:UNDELIV err:005 text:stat:DELIVRD id:1' });
    assert.equal(parsed.messageId, '77');
    assert.equal(parsed.state, 'UNDELIV');
    assert.equal(parsed.error, '005');
  });

  it('prefers the TLVs receipted_message_id and message_state when present', () => {
    const parsed = receipt({
      tlvs: {
        receiptedMessageId: '99',
        messageState: 5,
        networkErrorCode: { networkType: 3, errorCode: 11 },
      },
      text: 'id:1 stat:DELIVRD',
    });
    assert.equal(parsed.messageId, '99');
    assert.equal(parsed.state, 'UNDELIV');
    assert.equal(parsed.source, 'tlv');
    assert.deepEqual(parsed.networkErrorCode, { networkType: 3, errorCode: 11 });
  });

  it('takes what the TLVs lack from the text', () => {
    const parsed = receipt({ tlvs: { receiptedMessageId: '99' }, text: 'id:99 stat:EXPIRED' });
    assert.equal(parsed.state, 'EXPIRED');
    assert.equal(parsed.source, 'tlv+text');
  });

  it('reads every message_state value 1..8 as its state', () => {
    RECEIPT_STATES.forEach((state, index) => {
      assert.equal(
        receipt({ tlvs: { receiptedMessageId: '1', messageState: index + 1 }, text: '' }).state,
        state,
      );
    });
  });

  it('is an error without an id or a known state', () => {
    assert.equal(parseReceipt({ tlvs: {}, text: 'stat:DELIVRD' }, AS_IS).ok, false);
    assert.equal(parseReceipt({ tlvs: {}, text: 'id:12 stat:SOMETHING' }, AS_IS).ok, false);
    assert.equal(
      parseReceipt({ tlvs: { receiptedMessageId: '1', messageState: 9 }, text: '' }, AS_IS).ok,
      false,
    );
    assert.equal(parseReceipt({ tlvs: {}, text: 'hello' }, AS_IS).ok, false);
  });
});

describe('receipt states mean message outcomes', () => {
  it('DELIVRD is delivered; UNDELIV and REJECTD carrier_rejected; EXPIRED and DELETED unreachable', () => {
    assert.deepEqual(receiptOutcome('DELIVRD'), {
      status: 'delivered',
      failureReason: null,
      final: true,
    });
    for (const state of ['UNDELIV', 'REJECTD'] as const) {
      assert.deepEqual(receiptOutcome(state), {
        status: 'failed',
        failureReason: 'carrier_rejected',
        final: true,
      });
    }
    for (const state of ['EXPIRED', 'DELETED'] as const) {
      assert.deepEqual(receiptOutcome(state), {
        status: 'failed',
        failureReason: 'unreachable',
        final: true,
      });
    }
  });

  it('ACCEPTD, ENROUTE and UNKNOWN are not final', () => {
    for (const state of ['ACCEPTD', 'ENROUTE', 'UNKNOWN'] as const) {
      assert.deepEqual(receiptOutcome(state), {
        status: 'sent',
        failureReason: null,
        final: false,
      });
    }
  });

  it('uses only failure reasons the domain defines', () => {
    for (const state of RECEIPT_STATES) {
      const { failureReason } = receiptOutcome(state);
      if (failureReason !== null) assert.ok(FAILURE_REASONS.includes(failureReason));
    }
  });
});

describe('message ids normalised to match', () => {
  it('gives a number in hex and the same number in decimal one form', () => {
    assert.equal(normaliseMessageId('00FF', 'hex'), '255');
    assert.equal(normaliseMessageId('0x00ff', 'hex'), '255');
    assert.equal(normaliseMessageId('0255', 'dec'), '255');
    assert.equal(normaliseMessageId('F4240', 'hex'), normaliseMessageId('1000000', 'dec'));
  });

  it('keeps ids beyond 2^53 exact', () => {
    assert.equal(normaliseMessageId('FFFFFFFFFFFFFFFFFF', 'hex'), (2n ** 72n - 1n).toString());
  });

  it('keeps an id as given (trimmed) under text, or when it is no number in its declared base', () => {
    assert.equal(normaliseMessageId(' 00Ab-1 ', 'text'), '00Ab-1');
    assert.equal(normaliseMessageId('12ab', 'dec'), '12ab');
    assert.equal(normaliseMessageId('xyz', 'hex'), 'xyz');
  });

  it('matches a hex submit_sm_resp id to its receipt in decimal text, and in a TLV', () => {
    const ids: IdFormats = { submit: 'hex', receipt: 'dec' };
    const submitted = normaliseMessageId('F4240', ids.submit);
    const byText = receipt({ tlvs: {}, text: 'id:1000000 stat:DELIVRD' }, ids);
    const byTlv = receipt(
      { tlvs: { receiptedMessageId: 'F4240', messageState: 2 }, text: '' },
      ids,
    );
    assert.equal(byText.messageId, submitted);
    assert.equal(byTlv.messageId, submitted);
    assert.equal(byText.rawMessageId, '1000000');
  });

  it('matches a decimal submit_sm_resp id to its receipt in hex text', () => {
    const ids: IdFormats = { submit: 'dec', receipt: 'hex' };
    const byText = receipt({ tlvs: {}, text: 'id:0000000A stat:DELIVRD' }, ids);
    assert.equal(byText.messageId, normaliseMessageId('10', ids.submit));
  });
});
