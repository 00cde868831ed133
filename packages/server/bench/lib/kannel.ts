// Kannel (Debian's `kannel`: bearerbox and smsbox), the gateway people self-host, as the
// reference of `npm run bench -- --smpp`: one SMPP connection to the same simulator, its
// `sendsms` HTTP interface as the way in. Its store is a file it never fsyncs.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, type Running } from './processes.ts';

export const BEARERBOX = '/usr/sbin/bearerbox';
export const SMSBOX = '/usr/sbin/smsbox';

/** True when Kannel is installed (`apt-get install kannel`). */
export function haveKannel(): boolean {
  return existsSync(BEARERBOX) && existsSync(SMSBOX);
}

/** Starts bearerbox and smsbox bound to the SMSC at `smscPort`; resolves once sendsms answers. */
export async function startKannel(
  dir: string,
  smscPort: number,
  window: number,
): Promise<Running & { sendsmsUrl: string }> {
  const [admin, box, sendsms] = [await freePort(), await freePort(), await freePort()];
  const conf = join(dir, 'kannel.conf');
  writeFileSync(
    conf,
    `group = core
admin-port = ${admin}
admin-password = bench
smsbox-port = ${box}
box-allow-ip = 127.0.0.1
log-level = 4
store-type = file
store-location = ${join(dir, 'kannel.store')}
dlr-storage = internal

group = smsc
smsc = smpp
smsc-id = sim
host = 127.0.0.1
port = ${smscPort}
transceiver-mode = true
smsc-username = kannel
smsc-password = bench
system-type = VMA
max-pending-submits = ${window}
source-addr-ton = 1
source-addr-npi = 1
dest-addr-ton = 1
dest-addr-npi = 1

group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${box}
sendsms-port = ${sendsms}
log-level = 4

group = sendsms-user
username = bench
password = bench

group = sms-service
keyword = default
text = ok
`,
  );
  const bearer = spawn(BEARERBOX, [conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  // smsbox gives up at once when bearerbox is not listening yet: its status page says when.
  for (let i = 0; i < 100; i++) {
    const up = await fetch(`http://127.0.0.1:${admin}/status?password=bench`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await sleep(100);
  }
  const sms = spawn(SMSBOX, [conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  for (const child of [bearer, sms]) {
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
  }
  const sendsmsUrl = `http://127.0.0.1:${sendsms}`;
  const stop = async () => {
    for (const child of [sms, bearer]) {
      if (child.exitCode === null) child.kill('SIGTERM');
    }
    await sleep(1000);
    for (const child of [sms, bearer]) if (child.exitCode === null) child.kill('SIGKILL');
  };
  for (let i = 0; i < 100; i++) {
    const status = await fetch(`${sendsmsUrl}/cgi-bin/sendsms`).then(
      (r) => r.status,
      () => 0,
    );
    // Up: it refuses a request without credentials (403 or 400).
    if (status >= 400 && status < 500)
      return {
        pid: bearer.pid!,
        url: sendsmsUrl,
        child: bearer,
        output: () => output,
        stop,
        sendsmsUrl,
      };
    await sleep(100);
  }
  await stop();
  spawnSync('true');
  throw new Error(`Kannel did not start:\n${output}`);
}
