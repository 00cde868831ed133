import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PduDecodeError, PduEncodeError } from '../../src/carriers/smpp/errors.ts';
import { PduFramer } from '../../src/carriers/smpp/framer.ts';
import {
  CommandStatus,
  ESME_RINVTLVSTREAM,
  describeStatus,
  nextSequenceNumber,
  shortMessage,
  type Pdu,
} from '../../src/carriers/smpp/pdu.ts';
import { decodePdu, encodePdu } from '../../src/carriers/smpp/pdu-codec.ts';
import { decodeTlvs } from '../../src/carriers/smpp/tlv.ts';

/** A PDU of each kind this codec writes, with every field set to something other than its default. */
const SAMPLES: Pdu[] = [
  {
    command: 'bind_transceiver',
    commandStatus: 0,
    sequenceNumber: 1,
    systemId: 'switchboard',
    password: 'secret12',
    systemType: 'SMS',
    interfaceVersion: 0x34,
    addrTon: 1,
    addrNpi: 1,
    addressRange: '^1555',
  },
  {
    command: 'bind_receiver_resp',
    commandStatus: 0,
    sequenceNumber: 2,
    systemId: 'SMSC',
    tlvs: { scInterfaceVersion: 0x34 },
  },
  { command: 'outbind', commandStatus: 0, sequenceNumber: 3, systemId: 'SMSC', password: 'pw' },
  { command: 'enquire_link', commandStatus: 0, sequenceNumber: 0x7fffffff },
  { command: 'enquire_link_resp', commandStatus: 0, sequenceNumber: 4 },
  { command: 'unbind', commandStatus: 0, sequenceNumber: 5 },
  { command: 'unbind_resp', commandStatus: 0, sequenceNumber: 5 },
  { command: 'generic_nack', commandStatus: CommandStatus.ESME_RINVCMDID, sequenceNumber: 6 },
  shortMessage({
    command: 'submit_sm',
    sequenceNumber: 7,
    serviceType: 'CMT',
    sourceAddrTon: 1,
    sourceAddrNpi: 1,
    sourceAddr: '15550100',
    destAddrTon: 1,
    destAddrNpi: 1,
    destinationAddr: '447700900123',
    esmClass: 0x40,
    protocolId: 0,
    priorityFlag: 1,
    scheduleDeliveryTime: '000000000100000R',
    validityPeriod: '000001000000000R',
    registeredDelivery: 1,
    dataCoding: 8,
    shortMessage: Buffer.from('050003010201d83dde00', 'hex'),
    tlvs: {
      userMessageReference: 42,
      sourcePort: 1234,
      other: [{ tag: 0x1403, value: Buffer.from('vendor') }],
    },
  }),
  { command: 'submit_sm_resp', commandStatus: 0, sequenceNumber: 7, messageId: '0A1B2C', tlvs: {} },
  shortMessage({
    command: 'deliver_sm',
    sequenceNumber: 8,
    sourceAddr: '447700900123',
    destinationAddr: '15550100',
    esmClass: 0x04,
    shortMessage: Buffer.from('id:1 stat:DELIVRD'),
    tlvs: {
      receiptedMessageId: '0A1B2C',
      messageState: 2,
      networkErrorCode: { networkType: 3, errorCode: 0x0102 },
      sarMsgRefNum: 0xabcd,
      sarTotalSegments: 3,
      sarSegmentSeqnum: 2,
    },
  }),
  { command: 'deliver_sm_resp', commandStatus: 0, sequenceNumber: 8, messageId: '', tlvs: {} },
  {
    command: 'data_sm',
    commandStatus: 0,
    sequenceNumber: 9,
    serviceType: '',
    sourceAddrTon: 1,
    sourceAddrNpi: 1,
    sourceAddr: '447700900123',
    destAddrTon: 1,
    destAddrNpi: 1,
    destinationAddr: '15550100',
    esmClass: 0,
    registeredDelivery: 0,
    dataCoding: 0,
    tlvs: { messagePayload: Buffer.from('hello') },
  },
  { command: 'data_sm_resp', commandStatus: 0, sequenceNumber: 9, messageId: 'abc', tlvs: {} },
  {
    command: 'alert_notification',
    commandStatus: 0,
    sequenceNumber: 10,
    sourceAddrTon: 1,
    sourceAddrNpi: 1,
    sourceAddr: '447700900123',
    esmeAddrTon: 1,
    esmeAddrNpi: 1,
    esmeAddr: '15550100',
    tlvs: { msAvailabilityStatus: 0 },
  },
];

/** The submit_sm sample's octets, to break in the tests below. */
const SUBMIT = encodePdu(SAMPLES[8]!);

function withLength(bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  copy.writeUInt32BE(copy.length, 0);
  return copy;
}

function decodeError(bytes: Buffer): PduDecodeError {
  const result = decodePdu(bytes);
  assert.equal(result.ok, false, 'expected a decode error');
  return (result as { ok: false; error: PduDecodeError }).error;
}

describe('the SMPP 3.4 codec', () => {
  for (const sample of SAMPLES) {
    it(`decodes what it encodes: ${sample.command}`, () => {
      const bytes = encodePdu(sample);
      assert.equal(bytes.readUInt32BE(0), bytes.length, 'command_length is the PDU length');
      const decoded = decodePdu(bytes);
      assert.ok(decoded.ok, decoded.ok ? '' : decoded.error.message);
      assert.deepEqual(decoded.pdu, sample);
    });
  }

  it('writes the header and C-Octet Strings as the specification lays them out', () => {
    const bytes = encodePdu({ command: 'generic_nack', commandStatus: 3, sequenceNumber: 9 });
    assert.equal(bytes.toString('hex'), '00000010' + '80000000' + '00000003' + '00000009');
    const resp = encodePdu({
      command: 'submit_sm_resp',
      commandStatus: 0,
      sequenceNumber: 1,
      messageId: 'AB',
      tlvs: {},
    });
    assert.equal(resp.subarray(16).toString('hex'), '414200');
  });

  it('leaves the body out of an error submit_sm_resp and reads one without a body', () => {
    const bytes = encodePdu({
      command: 'submit_sm_resp',
      commandStatus: CommandStatus.ESME_RTHROTTLED,
      sequenceNumber: 4,
      messageId: 'ignored',
      tlvs: {},
    });
    assert.equal(bytes.length, 16);
    const decoded = decodePdu(bytes);
    assert.ok(decoded.ok);
    assert.equal(decoded.pdu.commandStatus, 0x58);
  });

  it('reads an error response that carries a body anyway (Net::SMPP sends one)', () => {
    const bytes = withLength(
      Buffer.concat([Buffer.from('0000000080000004000000580000000c', 'hex'), Buffer.from([0])]),
    );
    const decoded = decodePdu(bytes);
    assert.ok(decoded.ok);
    assert.deepEqual(decoded.pdu, {
      command: 'submit_sm_resp',
      commandStatus: 0x58,
      sequenceNumber: 12,
      messageId: '',
      tlvs: {},
    });
  });

  it('keeps unknown TLVs as raw octets, in order', () => {
    const tlvs = decodeTlvs(Buffer.from('1400000161' + '14010000' + '0427000105', 'hex'));
    assert.deepEqual(tlvs, {
      messageState: 5,
      other: [
        { tag: 0x1400, value: Buffer.from('a') },
        { tag: 0x1401, value: Buffer.alloc(0) },
      ],
    });
  });

  it('reads a receipted_message_id TLV with or without its terminating NUL', () => {
    assert.deepEqual(decodeTlvs(Buffer.from('001e000431323300', 'hex')), {
      receiptedMessageId: '123',
    });
    assert.deepEqual(decodeTlvs(Buffer.from('001e0003313233', 'hex')), {
      receiptedMessageId: '123',
    });
  });

  it('numbers requests 1 to 0x7FFFFFFF, then 1 again, skipping numbers still awaiting an answer', () => {
    assert.equal(nextSequenceNumber(0), 1);
    assert.equal(nextSequenceNumber(41), 42);
    assert.equal(nextSequenceNumber(0x7ffffffe), 0x7fffffff);
    assert.equal(nextSequenceNumber(0x7fffffff), 1);
    assert.equal(
      nextSequenceNumber(0x7fffffff, (n) => n <= 3),
      4,
    );
  });

  it('names command statuses the way lastError shows them', () => {
    assert.equal(describeStatus(CommandStatus.ESME_RINVPASWD), 'ESME_RINVPASWD (0x0E)');
    assert.equal(describeStatus(0x58), 'ESME_RTHROTTLED (0x58)');
    assert.equal(describeStatus(ESME_RINVTLVSTREAM), 'ESME_RINVOPTPARSTREAM (0xC0)');
    assert.equal(describeStatus(0x400), 'command_status 0x400');
  });
});

describe('a malformed PDU is a typed error, never an exception', () => {
  it('a body cut short is truncated, answered with ESME_RINVMSGLEN', () => {
    // Cut three octets into the 10-octet short_message (22 octets of TLVs follow it).
    const cut = decodeError(withLength(SUBMIT.subarray(0, SUBMIT.length - 22 - 3)));
    assert.equal(cut.code, 'truncated');
    assert.equal(cut.status, CommandStatus.ESME_RINVMSGLEN);
    assert.equal(cut.sequenceNumber, 7, 'the header is still reported');
    assert.equal(cut.commandId, 0x04);
    assert.equal(decodeError(withLength(SUBMIT.subarray(0, 47))).code, 'truncated');
  });

  it('a command_length that disagrees with the frame is ESME_RINVCMDLEN', () => {
    const bytes = Buffer.from(SUBMIT);
    bytes.writeUInt32BE(SUBMIT.length + 4, 0);
    const error = decodeError(bytes);
    assert.equal(error.code, 'bad_command_length');
    assert.equal(error.status, CommandStatus.ESME_RINVCMDLEN);
    assert.equal(decodeError(Buffer.alloc(10)).code, 'bad_command_length');
  });

  it('a C-Octet String without its NUL is an error, not a read past the end', () => {
    // bind_transceiver whose system_id never ends.
    const bytes = withLength(
      Buffer.concat([
        Buffer.from('0000000000000009000000000000000b', 'hex'),
        Buffer.from('abcdefgh'),
      ]),
    );
    const error = decodeError(bytes);
    assert.equal(error.code, 'unterminated_cstring');
    assert.equal(error.commandId, 0x09);
  });

  it('a C-Octet String longer than the field allows is an error', () => {
    const long = Buffer.from('x'.repeat(20) + '\0' + 'pw\0\0' + '\x34\x00\x00\0', 'latin1');
    const error = decodeError(
      withLength(Buffer.concat([Buffer.from('0000000000000009000000000000000b', 'hex'), long])),
    );
    assert.equal(error.code, 'cstring_too_long');
    assert.equal(error.status, CommandStatus.ESME_RINVPARLEN);
  });

  it('a TLV whose length runs past the PDU is ESME_RINVOPTPARSTREAM', () => {
    const bytes = withLength(Buffer.concat([SUBMIT, Buffer.from('0424ffff6162', 'hex')]));
    const error = decodeError(bytes);
    assert.equal(error.code, 'tlv_overrun');
    assert.equal(error.status, ESME_RINVTLVSTREAM);
    assert.equal(
      decodeError(withLength(Buffer.concat([SUBMIT, Buffer.from('04', 'hex')]))).code,
      'tlv_overrun',
    );
  });

  it('a typed TLV of the wrong size is ESME_RINVPARLEN', () => {
    const bytes = withLength(Buffer.concat([SUBMIT, Buffer.from('042700020001', 'hex')]));
    assert.equal(decodeError(bytes).code, 'bad_tlv_length');
  });

  it('an unknown command id is ESME_RINVCMDID, with the sequence number to nack', () => {
    const error = decodeError(Buffer.from('0000001000000099000000000000002a', 'hex'));
    assert.equal(error.code, 'unknown_command');
    assert.equal(error.status, CommandStatus.ESME_RINVCMDID);
    assert.equal(error.sequenceNumber, 42);
  });

  it('decodes any octets at all without throwing', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 0, max: 0x103 }),
        (body, id) => {
          const bytes = Buffer.concat([Buffer.alloc(16), Buffer.from(body)]);
          bytes.writeUInt32BE(bytes.length, 0);
          bytes.writeUInt32BE(id, 4);
          const result = decodePdu(bytes);
          assert.ok(result.ok || result.error instanceof PduDecodeError);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a field too long to write is refused when encoding', () => {
    assert.throws(
      () => encodePdu(shortMessage({ command: 'submit_sm', destinationAddr: '1'.repeat(21) })),
      PduEncodeError,
    );
    assert.throws(
      () => encodePdu(shortMessage({ command: 'submit_sm', shortMessage: Buffer.alloc(255) })),
      PduEncodeError,
    );
  });
});

describe('the framer', () => {
  it('cuts a stream into the same PDUs however it arrives in chunks', () => {
    const stream = Buffer.concat(SAMPLES.map(encodePdu));
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: stream.length }), { maxLength: 20 }),
        (cuts) => {
          const framer = new PduFramer();
          const points = [0, ...[...new Set(cuts)].sort((a, b) => a - b), stream.length];
          const frames: Buffer[] = [];
          for (let i = 0; i + 1 < points.length; i++) {
            for (const event of framer.push(stream.subarray(points[i], points[i + 1]))) {
              assert.equal(event.kind, 'frame');
              if (event.kind === 'frame') frames.push(event.frame);
            }
          }
          assert.deepEqual(
            frames.map((f) => decodePdu(f)).map((r) => (r.ok ? r.pdu : null)),
            SAMPLES,
          );
          assert.equal(framer.buffered, 0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reports a command_length under the header once, and frames nothing after it', () => {
    const framer = new PduFramer();
    const good = encodePdu(SAMPLES[3]!);
    const events = framer.push(
      Buffer.concat([good, Buffer.from('000000080000001500000000', 'hex'), good]),
    );
    assert.deepEqual(
      events.map((e) => e.kind),
      ['frame', 'error'],
    );
    assert.equal(framer.failed, true);
    assert.deepEqual(framer.push(good), []);
  });

  it('reports a command_length over the cap before buffering it', () => {
    const framer = new PduFramer(64 * 1024);
    const [event] = framer.push(Buffer.from('7fffffff00000004', 'hex'));
    assert.equal(event?.kind, 'error');
    if (event?.kind === 'error') {
      assert.equal(event.error.commandLength, 0x7fffffff);
      assert.equal(event.error.commandId, 4);
    }
  });
});
