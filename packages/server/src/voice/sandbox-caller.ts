import { diesWithParent } from './supervisor.ts';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../lib/logger.ts';
import { freeMediaPorts, freeVoicePort } from './ports.ts';

/** A call the sandbox places to an account's softphones. */
export interface SandboxRing {
  /** `acct_….test`: whose softphones ring. */
  aor: string;
  /** The caller's number. */
  from: string;
  /** The account's number called. */
  to: string;
}

const SCENARIO = new URL('./sandbox-caller.xml', import.meta.url);

/** Longest a sandbox call lasts before its caller is stopped. */
const LONGEST_CALL_MS = 60 * 60 * 1000;

/**
 * Rings an account's softphones: sipp calls them through Kamailio with this run's token (which
 * Kamailio requires of calls it did not authenticate), and echoes the audio once answered.
 * Each caller lives until its call ends, at most an hour; `stopAll` ends those still running.
 */
export function sandboxCaller(options: {
  host: string;
  sipPort: number;
  controlToken: string;
  sipp: string;
  logger: Logger;
}) {
  const running = new Set<ChildProcess>();
  return {
    async ring(call: SandboxRing): Promise<void> {
      const [media] = await freeMediaPorts(options.host, 4);
      const port = await freeVoicePort(options.host);
      const args = [
        `${options.host}:${options.sipPort}`,
        ['-sf', SCENARIO.pathname],
        ['-i', options.host, '-p', String(port), '-mi', options.host, '-mp', String(media)],
        ['-rtp_echo', '-m', '1', '-nostdin', '-recv_timeout', String(LONGEST_CALL_MS)],
        ['-key', 'aor', call.aor, '-key', 'from', call.from, '-key', 'to', call.to],
        ['-key', 'token', options.controlToken],
      ].flat();
      const child = spawn(...diesWithParent(options.sipp, args), { stdio: 'ignore' });
      running.add(child);
      const timer = setTimeout(() => child.kill('SIGKILL'), LONGEST_CALL_MS + 10_000);
      child.on('error', (error) => options.logger.error({ err: error }, 'sandbox caller failed'));
      child.on('exit', (code) => {
        clearTimeout(timer);
        running.delete(child);
        options.logger.debug({ code, aor: call.aor }, 'sandbox call ended');
      });
    },
    stopAll(): void {
      for (const child of running) child.kill('SIGTERM');
    },
  };
}
