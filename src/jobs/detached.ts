// mado's own Node processes that run apart from the one starting them: the daemon and the hosts.
import { spawn } from 'node:child_process';

/**
 * `env` without NODE_EXTRA_CA_CERTS. Node 20 with OpenSSL 3 parses that file before it runs any code
 * (about 40 ms for a system CA bundle), and these processes speak only on local sockets. The agents
 * still get it: a job's environment travels in its launch file, not in its host's environment.
 */
export function localNodeEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NODE_EXTRA_CA_CERTS;
  return out;
}

export interface Detached {
  /** How it ended (`exited with status 1`, `was killed by SIGKILL`, …); undefined while it runs. */
  ended(): string | undefined;
}

/**
 * Starts `node script …args` detached (a session of its own, no standard streams, not waited for)
 * with `localNodeEnv(env)`, and keeps how it ended so that a starter waiting for it can tell a death
 * at once.
 */
export function startDetached(script: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string): Detached {
  const child = spawn(process.execPath, [script, ...args], { detached: true, stdio: 'ignore', cwd, env: localNodeEnv(env) });
  let ended: string | undefined;
  child.once('exit', (code, signal) => (ended = signal ? `was killed by ${signal}` : `exited with status ${code}`));
  child.once('error', (err) => (ended = `could not be run: ${err.message}`));
  child.unref();
  return { ended: () => ended };
}
