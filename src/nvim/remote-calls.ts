// What the Lua side asks of a job on a remote host: through that host's link (src/jobs/remote),
// the job's host there for what its protocol answers (a reply, a menu's answer, its screen), that
// machine's daemon for what the job service does (stop, kill, respawn, remove, dispatch: the same
// requests and answers as this machine's, service.ts), and a verb run there for its log.
import { DEFAULT_AGENT } from '../agents/index.js';
import { parseDispatchLine } from '../fleet/dispatch-line.js';
import type { Remotes } from '../jobs/remote/remotes.js';
import type { Link } from '../jobs/remote/link.js';
import { remoteJobScreen, sendToRemoteJob } from '../jobs/remote/job-ops.js';
import { MAX_REPLY_CHARS } from '../jobs/protocol/host-requests.js';
import { matchJob } from '../jobs/ids.js';
import { safeText } from '../shared/text.js';
import { dispatched, dispatchRequest, respawnVia, SERVICE_MS } from '../jobs/client/service.js';
import type { AskDaemon } from '../jobs/client/service.js';
import type { JobCall } from './from-lua.js';

/** How long a remote verb may take (a dispatch starts an agent there; a stop waits for it). */
const VERB_MS = 40_000;
/** The most output of a verb kept (a log is cut to its end). */
const MAX_OUTPUT = 2 * 1024 * 1024;
const SCREEN_LINES = 150;

/** Runs `mado …argv` there: its standard output, or its error in its own words. */
async function verb(link: Link, argv: string[], stdin?: string): Promise<string> {
  let out = '';
  let err = '';
  const run = link.verb(argv, {
    stdin,
    onOut: (fd, data) => {
      if (fd === 1) out = (out + data).slice(-MAX_OUTPUT);
      else err = (err + data).slice(-4096);
    },
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${link.name} did not finish \`mado ${argv[0]}\` in ${VERB_MS / 1000} s`)),
      VERB_MS,
    );
  });
  try {
    const code = await Promise.race([run, late]);
    if (code !== 0)
      throw new Error(`${link.name}: ${safeText(err.trim()) || `mado ${argv[0]} ended with status ${code}`}`);
    return out;
  } finally {
    clearTimeout(timer);
  }
}

const lines = (text: string): string[] => text.replace(/\n$/, '').split('\n').map(safeText);

/** A job call of the Lua side (`m`, as its guard let it through) for a job of remote host `host`. */
export async function remoteJobCall(remotes: Remotes, host: string, m: JobCall): Promise<unknown> {
  const link = remotes.link(host);
  // The job by its id, a unique prefix or its name, among the host's as last listed.
  let id = '';
  if ('id' in m) {
    const jobs = remotes.jobs(host);
    const found = matchJob(
      jobs.map((j) => j.short),
      m.id,
      () => jobs,
    );
    if (!found.ok) throw new Error(`${host}: ${safeText(found.error)}`);
    id = found.short;
  }
  // That machine's daemon, as this machine's is asked (the same requests, the same answers).
  const daemon: AskDaemon = (request, timeoutMs) => link.daemon(request, timeoutMs);
  switch (m.op) {
    case 'respawn':
      // Its agent's variables are that machine's (filled there).
      await respawnVia(daemon, id, {});
      return { short: id };
    case 'send': {
      const text = m.text;
      if (text.trim() === '') throw new Error('a reply needs some text');
      if (text.length > MAX_REPLY_CHARS) throw new Error(`the reply is longer than ${MAX_REPLY_CHARS / 1024} KiB`);
      return { short: id, pending: await sendToRemoteJob(link, id, text) };
    }
    case 'screen_of': {
      // A running job's screen from its host there; an ended one's last lines from its log there.
      try {
        return { short: id, lines: await remoteJobScreen(link, id) };
      } catch {
        return { short: id, lines: lines(await verb(link, ['logs', '-n', String(SCREEN_LINES), id])) };
      }
    }
    case 'logs':
      return { short: id, lines: lines(await verb(link, ['logs', id])) };
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
      return { ...dispatched(request, await daemon(request, SERVICE_MS.dispatch)), host };
    }
    case 'background':
      throw new Error('a terminal goes on as a job of this machine, not of a remote host');
  }
}
