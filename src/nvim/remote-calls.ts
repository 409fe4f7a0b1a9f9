// What the Lua side asks of a remote host that is no operation of the registry (those go by the
// host's bridge, op-calls.ts): a job dispatched there, by that machine's daemon through the host's
// link (the same request and answer as this machine's, service.ts).
import { DEFAULT_AGENT } from '../agents/index.js';
import { parseDispatchLine } from '../fleet/dispatch-line.js';
import type { Remotes } from '../jobs/remote/remotes.js';
import { dispatched, dispatchRequest, SERVICE_MS } from '../jobs/client/service.js';
import type { JobCall } from './from-lua.js';

/** A job call of the Lua side (`m`, as its guard let it through) for remote host `host`. */
export async function remoteJobCall(remotes: Remotes, host: string, m: JobCall): Promise<unknown> {
  const link = remotes.link(host);
  switch (m.op) {
    case 'dispatch': {
      const line = parseDispatchLine(m.line, m.agent ?? DEFAULT_AGENT);
      if ('error' in line) throw new Error(line.error);
      // Its folder and its agent's variables are that machine's (filled there).
      const request = dispatchRequest(
        {
          agent: line.agent,
          prompt: line.intent,
          worktree: line.worktree,
          forkSession: false,
          origin: 'fleet',
          cwd: '',
          name: line.name,
        },
        {},
      );
      return { ...dispatched(request, await link.daemon(request, SERVICE_MS.dispatch)), host };
    }
    case 'background':
      throw new Error('a terminal goes on as a job of this machine, not of a remote host');
  }
}
