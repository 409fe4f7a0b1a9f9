// mado's own Node processes that run apart from the one starting them: the daemon and the hosts.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import { LASTING_NODE_FLAGS } from './env.js';

export interface Detached {
  /** How it ended (`exited with status 1`, `was killed by SIGKILL`, …); undefined while it runs. */
  ended(): string | undefined;
}

/** A detached process that waits for what its starter hands it on its standard input (a spare host). */
export interface Waiting extends Detached {
  /** Writes `text` to its standard input and closes it; false when it has ended (nothing was handed). */
  hand(text: string): boolean;
  /** Closes its standard input with nothing handed: it leaves. */
  release(): void;
}

/**
 * Starts `node script …args` detached, with the flags of a Node that lasts: a session of its own, no
 * output streams, not waited for.
 */
function spawnDetached(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string | undefined,
  input: boolean,
): { child: ChildProcess; ended(): string | undefined } {
  const child = spawn(process.execPath, [...LASTING_NODE_FLAGS, script, ...args], {
    detached: true,
    stdio: [input ? 'pipe' : 'ignore', 'ignore', 'ignore'],
    cwd,
    env,
  });
  let ended: string | undefined;
  child.once('exit', (code, signal) => (ended = signal ? `was killed by ${signal}` : `exited with status ${code}`));
  child.once('error', (err) => (ended = `could not be run: ${err.message}`));
  child.stdin?.on('error', () => {
    // It died before reading: `ended` tells.
  });
  child.unref();
  // Its input keeps no starter running (the daemon leaves when it is idle).
  if (child.stdin instanceof Socket) child.stdin.unref();
  return { child, ended: () => ended };
}

/**
 * Starts `node script …args` detached with exactly `env`, writes `input` to its standard input and
 * closes it, and keeps how it ended so that a starter waiting for it can tell a death at once.
 */
export function startDetached(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: { cwd?: string; input?: string } = {},
): Detached {
  const { child, ended } = spawnDetached(script, args, env, opts.cwd, opts.input !== undefined);
  child.stdin?.end(opts.input);
  return { ended };
}

/** Starts `node script …args` as startDetached does, its standard input kept open for what is handed later. */
export function startWaiting(script: string, args: string[], env: NodeJS.ProcessEnv, cwd: string): Waiting {
  const { child, ended } = spawnDetached(script, args, env, cwd, true);
  const open = (): boolean => ended() === undefined && child.stdin?.writable === true;
  return {
    ended,
    hand: (text) => {
      if (!open()) return false;
      child.stdin?.end(text);
      return true;
    },
    release: () => void child.stdin?.end(),
  };
}
