import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toSmppAddress } from '../../src/carriers/smpp/address.ts';
import { encodeGsm7, encodeUcs2 } from '../../src/carriers/smpp/gsm7.ts';
import {
  alphabetOf,
  classifyDelivery,
  type InboundOptions,
  type InboundPart,
} from '../../src/carriers/smpp/inbound.ts';
import { shortMessage, type ShortMessagePdu } from '../../src/carriers/smpp/pdu.ts';
import { reassemble } from '../../src/carriers/smpp/reassemble.ts';

const OPTIONS: InboundOptions = {
  ids: { submit: 'text', receipt: 'text' },
  defaultAlphabet: 'gsm7',
};

function deliver(fields: Partial<ShortMessagePdu>): ShortMessagePdu {
  return shortMessage({
    command: 'deliver_sm',
    sourceAddrTon: 1,
    sourceAddr: '447700900123',
    destAddrTon: 1,
    destinationAddr: '15550100',
    ...fields,
  });
}

function part(pdu: ShortMessagePdu, options = OPTIONS): InboundPart {
  const inbound = classifyDelivery(pdu, options);
  assert.equal(inbound.kind, 'message', inbound.kind === 'invalid' ? inbound.error : '');
  return (inbound as { part: InboundPart }).part;
}

/** UCS-2 parts of `text` cut every `octets`, behind 8-bit or 16-bit concatenation headers. */
function ucs2Parts(
  text: string,
  octets: number,
  reference: number,
  wide = false,
): ShortMessagePdu[] {
  const bytes = encodeUcs2(text);
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += octets) chunks.push(bytes.subarray(at, at + octets));
  return chunks.map((chunk, index) => {
    const header = wide
      ? Buffer.from([6, 8, 4, reference >> 8, reference & 0xff, chunks.length, index + 1])
      : Buffer.from([5, 0, 3, reference, chunks.length, index + 1]);
    return deliver({ esmClass: 0x40, dataCoding: 8, shortMessage: Buffer.concat([header, chunk]) });
  });
}

describe('what the SMSC delivers', () => {
  it('reads a text in each data_coding: GSM 03.38, IA5, Latin-1, UCS-2', () => {
    assert.equal(
      part(deliver({ dataCoding: 0, shortMessage: encodeGsm7('Hi €5 @home')! })).text,
      'Hi €5 @home',
    );
    assert.equal(
      part(deliver({ dataCoding: 1, shortMessage: Buffer.from('Hi @home') })).text,
      'Hi @home',
    );
    assert.equal(
      part(deliver({ dataCoding: 3, shortMessage: Buffer.from('Olá ñ', 'latin1') })).text,
      'Olá ñ',
    );
    assert.equal(
      part(deliver({ dataCoding: 8, shortMessage: encodeUcs2('Привет 😀') })).text,
      'Привет 😀',
    );
  });

  it('reads data_coding 0 as Latin-1 where the connection says so', () => {
    const pdu = deliver({ dataCoding: 0, shortMessage: Buffer.from('café', 'latin1') });
    assert.equal(part(pdu, { ...OPTIONS, defaultAlphabet: 'latin1' }).text, 'café');
  });

  it('knows the GSM coding groups above the SMPP values', () => {
    assert.equal(alphabetOf(0xf0, 'gsm7'), 'gsm7');
    assert.equal(alphabetOf(0xf4, 'gsm7'), 'binary');
    assert.equal(alphabetOf(0x18, 'gsm7'), 'ucs2');
    assert.equal(alphabetOf(0x04, 'gsm7'), 'binary');
  });

  it('gives a number marked international (TON 1) in E.164, as toSmppAddress takes it', () => {
    const got = part(deliver({ shortMessage: Buffer.from('x') }));
    assert.equal(got.source, '+447700900123');
    assert.equal(got.destination, '+15550100');
    assert.deepEqual(toSmppAddress('+15550100'), { ton: 1, npi: 1, addr: '15550100' });
    assert.deepEqual(toSmppAddress('ACME'), { ton: 5, npi: 0, addr: 'ACME' });
  });

  it('reads a text from message_payload when short_message is empty', () => {
    const pdu = deliver({
      dataCoding: 8,
      tlvs: { messagePayload: encodeUcs2('long '.repeat(50)) },
    });
    assert.equal(part(pdu).text, 'long '.repeat(50));
  });

  it('reads the concatenation IE with an 8-bit or a 16-bit reference', () => {
    const [narrow] = ucs2Parts('abc', 2, 7);
    assert.deepEqual(part(narrow!).concat, { reference: 7, total: 3, seq: 1 });
    const [wide] = ucs2Parts('abc', 2, 0x1234, true);
    assert.deepEqual(part(wide!).concat, { reference: 0x1234, total: 3, seq: 1 });
  });

  it('reads the SAR TLVs as the concatenation of a part', () => {
    const pdu = deliver({
      shortMessage: Buffer.from('one'),
      tlvs: { sarMsgRefNum: 300, sarTotalSegments: 2, sarSegmentSeqnum: 2 },
    });
    assert.deepEqual(part(pdu).concat, { reference: 300, total: 2, seq: 2 });
  });

  it('calls a UDH longer than its message, or part 0, invalid rather than guessing', () => {
    const long = classifyDelivery(
      deliver({ esmClass: 0x40, shortMessage: Buffer.from([9, 0, 3, 1]) }),
      OPTIONS,
    );
    assert.equal(long.kind, 'invalid');
    const zero = classifyDelivery(
      deliver({ esmClass: 0x40, shortMessage: Buffer.from([5, 0, 3, 1, 2, 0, 0x41]) }),
      OPTIONS,
    );
    assert.equal(zero.kind, 'invalid');
  });

  it('tells a receipt by esm_class, and reads it', () => {
    const inbound = classifyDelivery(
      deliver({
        esmClass: 0x04,
        shortMessage: Buffer.from(
          'id:5 sub:001 dlvrd:001 submit date:2401010000 done date:2401010000 stat:DELIVRD err:000 text:',
        ),
      }),
      OPTIONS,
    );
    assert.equal(inbound.kind, 'receipt');
    if (inbound.kind === 'receipt') assert.equal(inbound.receipt.messageId, '5');
  });

  it('tells a receipt by its TLVs when esm_class does not say', () => {
    const inbound = classifyDelivery(
      deliver({ tlvs: { receiptedMessageId: '8', messageState: 3 } }),
      OPTIONS,
    );
    assert.equal(inbound.kind, 'receipt');
  });

  it('calls a receipt without an id invalid', () => {
    assert.equal(
      classifyDelivery(
        deliver({ esmClass: 0x04, shortMessage: Buffer.from('stat:DELIVRD') }),
        OPTIONS,
      ).kind,
      'invalid',
    );
  });
});

describe('reassembly of concatenated texts', () => {
  const text = 'Привет! 😀 Это длинное сообщение, которое не помещается в одно SMS. '.repeat(3);

  it('joins UCS-2 parts that arrive out of order, even with a surrogate pair cut between parts', () => {
    // 133 octets per part: odd, so code units and pairs are cut in two between parts.
    const parts = ucs2Parts(text, 133, 42).map((pdu) => part(pdu));
    assert.ok(parts.length >= 3);
    const shuffled = [parts[2]!, parts[0]!, ...parts.slice(3), parts[1]!];
    assert.deepEqual(reassemble(shuffled.slice(0, -1)).complete, []);
    const { complete, pending } = reassemble(shuffled);
    assert.equal(complete.length, 1);
    assert.equal(complete[0]?.text, text);
    assert.equal(complete[0]?.source, '+447700900123');
    assert.deepEqual(pending, []);
  });

  it('keeps texts apart by source, reference and total, and counts a repeated part once', () => {
    const a = ucs2Parts('aaaa', 4, 1).map((pdu) => part(pdu));
    const b = ucs2Parts('bbbb', 4, 2).map((pdu) => part(pdu));
    const c = ucs2Parts('cccc', 4, 1).map((pdu) => ({ ...part(pdu), source: '+447700900999' }));
    const { complete, pending } = reassemble([a[0]!, b[0]!, a[0]!, c[1]!, b[1]!, c[0]!, a[1]!]);
    assert.deepEqual(
      complete.map((t) => t.text),
      ['bbbb', 'cccc', 'aaaa'],
    );
    assert.deepEqual(pending, []);
  });

  it('hands back a text that was never split at once', () => {
    const single = part(deliver({ shortMessage: encodeGsm7('hello')! }));
    assert.equal(reassemble([single]).complete[0]?.text, 'hello');
  });

  it('leaves the parts of an incomplete text pending', () => {
    const [first] = ucs2Parts('abcd', 4, 3).map((pdu) => part(pdu));
    assert.deepEqual(reassemble([first!]), { complete: [], pending: [first!] });
  });
});
