// `stop` and `kill`: through the job's host; when the host does not answer (stopped, frozen, gone),
// by signals to its agent's process group and to the host, checked by pid and start stamp.
import { clearDeadHost, hostRuns, readHostInfo, signalAgentGroup } from '../jobs/hostinfo.js';
import { request } from '../jobs/protocol/client.js';
import type { StopRequest } from '../jobs/protocol/daemon-requests.js';
import { STOP_WAIT_MS } from '../jobs/protocol/daemon-requests.js';
import type { Reply } from '../jobs/protocol/replies.js';
import { updateJob } from '../jobs/store.js';
import { sameProcess } from '../proc/stamp.js';
import type { DaemonContext } from './context.js';
import { hostGone, jobDirOf } from './context.js';

export const KILL_WAIT_MS = 3000;
const ASK_HOST_MS = 2000;

export async function handleStop(ctx: DaemonContext, m: StopRequest): Promise<Reply> {
  const dir = jobDirOf(ctx, m.short);
  const info = readHostInfo(dir);
  if (!info || !hostRuns(info)) {
    clearDeadHost(dir);
    return { type: 'error', error: `job ${m.short} is not running` };
  }
  const graceful = m.op === 'stop';
  try {
    await request(info.socket, { op: m.op }, ASK_HOST_MS);
  } catch (err) {
    // The host does not answer: its agent's group and the host itself end by signal, and the
    // job file says so here (the host cannot).
    ctx.say(
      `job ${m.short}: its host does not answer (${err instanceof Error ? err.message : String(err)}); signalling pid ${info.ptyPid} and ${info.pid}`,
    );
    signalAgentGroup(info, graceful ? 'SIGTERM' : 'SIGKILL');
    if (sameProcess(info.pid, info.pidStart)) process.kill(info.pid, 'SIGKILL');
    await hostGone(ctx, m.short, KILL_WAIT_MS);
    clearDeadHost(dir);
    const status = graceful ? 'stopped' : 'killed';
    await updateJob(ctx.jobsDir, m.short, { status, tempo: 'idle', needs: null, block: null, detail: status }).catch(
      () => undefined,
    );
    return { type: 'ok', short: m.short, ended: true };
  }
  if (m.op === 'stop' && m.wait === false) return { type: 'ok', short: m.short, ended: false };
  const ended = await hostGone(ctx, m.short, graceful ? STOP_WAIT_MS : KILL_WAIT_MS);
  return { type: 'ok', short: m.short, ended };
}
