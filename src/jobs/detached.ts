// mado's own Node processes that run apart from the one starting them: the daemon and the hosts.
import { spawn } from 'node:child_process';

export interface Detached {
  /** How it ended (`exited with status 1`, `was killed by SIGKILL`, …); undefined while it runs. */
  ended(): string | undefined;
}

/**
 * Starts `node script …args` detached (a session of its own, no output streams, not waited for) with
 * exactly `env`, writes `input` to its standard input and closes it, and keeps how it ended so that
 * a starter waiting for it can tell a death at once.
 */
export function startDetached(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { cwd?: string; input?: string } = {},
): Detached {
  const child = spawn(process.execPath, [script, ...args], {
    detached: true,
    stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'ignore', 'ignore'],
    cwd: opts.cwd,
    env,
  });
  let ended: string | undefined;
  child.once('exit', (code, signal) => (ended = signal ? `was killed by ${signal}` : `exited with status ${code}`));
  child.once('error', (err) => (ended = `could not be run: ${err.message}`));
  if (child.stdin) {
    child.stdin.on('error', () => {
      // It died before reading: `ended` tells.
    });
    child.stdin.end(opts.input);
  }
  child.unref();
  return { ended: () => ended };
}
