// Runs the ESME's session against each test SMSC: one peer and one session per test,
// both torn down after it, with timings short enough for a suite of seconds.
import { setTimeout as sleep } from 'node:timers/promises';
import {
  SmppSession,
  type DeliveryEvent,
  type SessionOptions,
  type SessionState,
} from '../../src/carriers/smpp/session.ts';
import { startNpmSmsc } from './npm-smsc.ts';
import { freePort } from './processes.ts';
import { startPerlSmsc, type SmscOptions, type SmscPeer } from './smsc-peer.ts';

/** The SMSC implementations every session test runs against. */
export const SMSCS: { name: string; start: (options?: SmscOptions) => Promise<SmscPeer> }[] = [
  { name: 'Net::SMPP', start: startPerlSmsc },
  { name: 'npm smpp', start: startNpmSmsc },
];

export interface Rig {
  peer: SmscPeer;
  session: SmppSession;
  /** What the session handed to onDeliver, in order. */
  delivered: DeliveryEvent[];
}

/** Session options that suit tests: quick timeouts and reconnects, no jitter to wait out. */
export function testSessionOptions(port: number): SessionOptions {
  return {
    host: '127.0.0.1',
    port,
    systemId: 'test',
    password: 'secret',
    responseTimeoutMs: 2_000,
    connectTimeoutMs: 2_000,
    queueTimeoutMs: 5_000,
    enquireLinkIntervalMs: 0,
    throttlePauseMs: 300,
    reconnect: { initialMs: 50, maxMs: 400, factor: 2, jitter: 0.5 },
    random: () => 0.5,
  };
}

/**
 * Starts `smsc` with `smscOptions` and a session on it with `sessionOptions` (over the
 * test defaults), runs `body`, and stops both whatever happens.
 */
export async function withSmsc(
  smsc: (typeof SMSCS)[number],
  smscOptions: SmscOptions,
  sessionOptions: Partial<SessionOptions>,
  body: (rig: Rig) => Promise<void>,
): Promise<void> {
  // A port outside the kernel's own range, so a restart finds it still free (processes.ts).
  const peer = await smsc.start({ port: await freePort(), ...smscOptions });
  const delivered: DeliveryEvent[] = [];
  const session = new SmppSession({
    ...testSessionOptions(peer.port),
    onDeliver: async (event) => {
      delivered.push(event);
    },
    ...sessionOptions,
  });
  try {
    session.start();
    await body({ peer, session, delivered });
  } finally {
    await session.stop();
    await peer.stop();
  }
}

/** Waits (bounded) until the session's status satisfies `accept`; fails with the last status. */
export async function waitForStatus(
  session: SmppSession,
  accept: (status: SmppSession['status']) => boolean,
  what: string,
  timeoutMs = 5_000,
): Promise<SmppSession['status']> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < Math.ceil(timeoutMs / 10) + 1; i++) {
    const status = session.status;
    if (accept(status)) return status;
    if (Date.now() >= deadline) break;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${what}: ${JSON.stringify(session.status)}`);
}

export function waitForState(session: SmppSession, state: SessionState, timeoutMs?: number) {
  return waitForStatus(session, (s) => s.state === state, `state ${state}`, timeoutMs);
}

/** Waits (bounded) until `count` events were delivered to the session's handler. */
export async function waitForDelivered(
  rig: Rig,
  count: number,
  timeoutMs = 5_000,
): Promise<DeliveryEvent[]> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; i < Math.ceil(timeoutMs / 10) + 1; i++) {
    if (rig.delivered.length >= count) return rig.delivered;
    if (Date.now() >= deadline) break;
    await sleep(10);
  }
  throw new Error(`timed out waiting for ${count} deliveries, got ${rig.delivered.length}`);
}
