// Starts a job's agent on a PTY of its own, dying with its host where util-linux can see to it.
import { existsSync } from 'node:fs';
import type { IPty } from 'node-pty';
import type { Launch } from './launch.js';

/** `setpriv --pdeathsig KILL`, where util-linux has it: the agent dies with its host even when it ignores SIGHUP. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

/** The agent on its PTY, or why it could not be started. */
export async function spawnAgent(launch: Launch, env: NodeJS.ProcessEnv): Promise<IPty | { error: string }> {
  const pty = (await import('node-pty')) as typeof import('node-pty');
  try {
    const argv = SETPRIV ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...launch.argv] : launch.argv;
    return pty.spawn(argv[0]!, argv.slice(1), {
      name: 'xterm-256color',
      cols: launch.cols,
      rows: launch.rows,
      cwd: launch.cwd,
      env: { ...env, TERM: 'xterm-256color' },
    });
  } catch (err) {
    return { error: `could not start ${launch.argv[0]}: ${err instanceof Error ? err.message : String(err)}` };
  }
}
