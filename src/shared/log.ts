import { appendFileSync } from 'node:fs';

/**
 * A file logger. The Node process must never write to stdout (it is the RPC channel), so logs go to
 * the file named by `MADOHUB_LOG`, or nowhere.
 */
const file = process.env.MADOHUB_LOG;
const debugOn = process.env.MADOHUB_LOG_LEVEL === 'debug';

function write(level: string, message: string): void {
  if (!file) return;
  try {
    appendFileSync(file, `${new Date().toISOString()} ${level} ${message}\n`);
  } catch {
    // A log that cannot be written must not take the process down.
  }
}

export const log = {
  info: (message: string): void => write('INFO', message),
  warn: (message: string): void => write('WARN', message),
  error: (message: string): void => write('ERROR', message),
  debug: (message: string): void => {
    if (debugOn) write('DEBUG', message);
  },
};
