import { pino, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Paths that may carry secrets. pino removes them before a line is written,
 * so a key or webhook secret never reaches a log even if it is logged by mistake.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'headers.authorization',
  'authorization',
  'secret',
  'password',
  '*.secret',
  '*.password',
  '*.authorization',
];

/** The process's structured logger (JSON lines on stdout). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options: LoggerOptions = {
    level,
    base: { service: 'switchboard' },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return destination ? pino(options, destination) : pino(options);
}
