import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Logger } from '../lib/logger.ts';

/**
 * util-linux's `setpriv --pdeathsig TERM` runs a program that the kernel signals when the
 * process that started it dies: a `serve` killed with SIGKILL (or crashing) cannot stop its
 * children itself, and without this they outlived it, holding their ports. TERM, not KILL, so
 * Kamailio's main process still stops the processes it forked. Node cannot set it itself.
 */
const SETPRIV = '/usr/bin/setpriv';

/** The command line that runs `command` so that it dies with this process, where it can. */
export function diesWithParent(command: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux' || !existsSync(SETPRIV)) return [command, args];
  return [SETPRIV, ['--pdeathsig', 'TERM', '--', command, ...args]];
}

/** One supervised child program of the voice stack. */
export interface Supervised {
  readonly name: string;
  /** The last lines it wrote, for the reason it failed. */
  lastLines(): string;
  /** True while the current run is alive. */
  running(): boolean;
  /** The current run's process id, or null. */
  pid(): number | null;
  /** Stops it (SIGTERM, then SIGKILL after `graceMs`) and does not restart it. */
  stop(graceMs?: number): Promise<void>;
}

/** Restarts allowed within one window before the supervisor gives up on a program. */
const RESTARTS = { max: 5, windowMs: 60_000, delayMs: 500 };

/**
 * Runs `command` and restarts it when it exits on its own, at most five times a minute,
 * so a program that cannot start fails loudly instead of spinning. Its output goes to the
 * log at debug level; the last lines are kept for the error a caller reports.
 */
export function supervise(
  name: string,
  command: string,
  args: string[],
  logger: Logger,
): Supervised {
  let child: ChildProcess | null = null;
  let stopping = false;
  let lines: string[] = [];
  const restarts: number[] = [];
  let restartTimer: NodeJS.Timeout | null = null;

  const keep = (chunk: string) => {
    for (const line of chunk.split('\n')) {
      if (line.trim() === '') continue;
      lines.push(line);
      logger.debug({ program: name }, line);
    }
    if (lines.length > 40) lines = lines.slice(-40);
  };

  const start = () => {
    // A process group of its own: Kamailio forks its workers, and a main process killed after
    // the grace period left them running (seen under load); the whole group is signalled.
    const run = spawn(...diesWithParent(command, args), {
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    child = run;
    run.stdout!.setEncoding('utf8').on('data', keep);
    run.stderr!.setEncoding('utf8').on('data', keep);
    run.on('error', (error) => keep(`${name} could not start: ${error.message}`));
    run.on('exit', (code, signal) => {
      if (child === run) child = null;
      if (stopping) return;
      const now = Date.now();
      restarts.push(now);
      while (restarts.length > 0 && restarts[0]! < now - RESTARTS.windowMs) restarts.shift();
      if (restarts.length > RESTARTS.max) {
        logger.error(
          { program: name, code, signal, output: lastLines() },
          `${name} keeps exiting; not restarted`,
        );
        return;
      }
      logger.warn({ program: name, code, signal }, `${name} exited; restarting`);
      restartTimer = setTimeout(start, RESTARTS.delayMs);
    });
  };

  const lastLines = () => lines.join('\n');
  start();
  return {
    name,
    lastLines,
    running: () => child !== null && child.exitCode === null && child.signalCode === null,
    pid: () => child?.pid ?? null,
    async stop(graceMs = 3000) {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const run = child;
      if (!run || run.exitCode !== null || run.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => run.once('exit', () => resolve()));
      signalGroup(run, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(run, 'SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
      // Whatever of its group outlived the main process.
      signalGroup(run, 'SIGKILL');
    },
  };
}

/** Signals the program's whole process group; just the program where there is none left. */
function signalGroup(run: ChildProcess, signal: NodeJS.Signals): void {
  if (run.pid === undefined) return;
  try {
    process.kill(-run.pid, signal);
  } catch {
    // No such group (every member gone): nothing to signal.
  }
}
