// `switchboard serve` with voice on, as tests see it from outside: its banner, its processes.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ServeProcess } from './processes.ts';

/** The banner's lines, once its voice line is out (polled for at most 15 s). */
export async function banner(serve: ServeProcess): Promise<string> {
  for (let i = 0; i < 150; i++) {
    if (/^ {2}voice +\S/m.test(serve.stdout())) return serve.stdout();
    await sleep(100);
  }
  assert.fail(`no voice line in the banner:\n${serve.stdout()}\n${serve.stderr()}`);
}

/** The SIP port the banner names. */
export function bannerSipPort(out: string): number {
  const [, sipPort] = /voice +on: SIP 127\.0\.0\.1:(\d+)/.exec(out) ?? [];
  assert.ok(sipPort, out);
  return Number(sipPort);
}

/** The processes whose parent is `pid`, from /proc. */
export function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        // The parent is the fourth field, after the name in parentheses.
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false; // gone meanwhile
      }
    })
    .map(Number);
}

/** `pid`'s children, theirs, and so on. */
export function descendantsOf(pid: number): number[] {
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    const children = childrenOf(next);
    found.push(...children);
    queue.push(...children);
  }
  return found;
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits (10 s at most) until none of `pids` runs; those still running. */
export async function stillRunning(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(100);
  return pids.filter(alive);
}

/** Signs in with the banner's login; the session cookie. */
export async function signIn(url: string, out: string): Promise<string> {
  const [, email, password] = /login (\S+) \/ (\S+)/.exec(out)!;
  const res = await fetch(`${url}/app/api/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  assert.equal(res.status, 200);
  return res.headers.get('set-cookie')!.split(';')[0]!;
}
