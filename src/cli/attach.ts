// `mado attach ID`: the job's screen in this terminal, on the alternate screen (detaching gives the
// terminal back as it was); Ctrl-] detaches and leaves the job running. It exits 0 when detached,
// 1 when the job ended or its host went away (a view of a job in Neovim closes on the first only).
import { hostRuns, readHostInfo } from '../jobs/hostinfo.js';
import { Conn, ReachError } from '../jobs/protocol/client.js';
import { JobError } from '../shared/errors.js';
import type { Io } from '../jobs/client/daemon.js';
import type { MessagePeer } from '../jobs/remote/link.js';

/** Detaches an attached client. */
export const DETACH_KEY = '\x1d';
/** The largest message a host sends an attached client (an output chunk, escaped). */
export const MAX_STREAM_BYTES = 8 * 1024 * 1024;

const ALT_SCREEN_ON = '\x1b[?1049h';
const ALT_SCREEN_OFF = '\x1b[?1049l';
/** The terminal's title saved (XTWINOPS 22) and given back (23) around a view. */
const TITLE_SAVE = '\x1b[22;0t';
const TITLE_RESTORE = '\x1b[23;0t';
/** A title the agent sets (OSC 0 or 2, ended by BEL or ST). */
const AGENT_TITLE = /\x1b\](?:0|2);([^\x07\x1b]*)(\x07|\x1b\\)/g;

/** The outer terminal's title while attached: the agent's own (when it sets one), and how to detach. */
export function viewTitle(short: string, agentTitle = ''): string {
  const own = agentTitle.replace(/[\x00-\x1f\x7f-\x9f]/g, '').slice(0, 120);
  return `\x1b]0;${own ? `${own} · ` : ''}mado ${short} · Ctrl-] detaches\x07`;
}

/** The job's output with each title its agent sets kept as the view's (the detach key stays in sight). */
export function withViewTitles(data: string, short: string): string {
  return data.replace(AGENT_TITLE, (_all, title: string) => viewTitle(short, title));
}

export async function attach(io: Io, short: string, jobDir: string): Promise<void> {
  const info = readHostInfo(jobDir);
  if (!info || !hostRuns(info))
    throw new JobError(`job ${short} is not running (mado respawn ${short} starts it again)`);
  let conn: Conn;
  try {
    ({ conn } = await Conn.open(info.socket, undefined, MAX_STREAM_BYTES));
  } catch (err) {
    if (err instanceof ReachError)
      throw new JobError(`cannot reach the host of job ${short}: ${err.message} (mado stop ${short} ends it)`);
    throw err;
  }
  return attachPeer(
    io,
    short,
    conn,
    (err) =>
      `the host of ${short} went away${err instanceof ReachError && err.reason === 'protocol' ? `: ${err.message}` : ''}`,
  );
}

/**
 * The view of a job through `conn` (a host's socket, or a channel of a link to another machine's);
 * `lost` words the end of a connection that went away (the job runs on).
 */
export async function attachPeer(
  io: Io,
  short: string,
  conn: MessagePeer,
  lost: (err: unknown) => string,
): Promise<void> {
  const stdin = process.stdin;
  const size = (): { cols: number; rows: number } => ({
    cols: process.stdout.columns || 80,
    rows: process.stdout.rows || 24,
  });
  const onResize = (): void => conn.send({ op: 'resize', ...size() });
  let ended = false;
  /** Why the view ended other than by a detach (the command then fails with it). */
  let failure: string | undefined;
  const end = (note: string, detached = false): void => {
    if (ended) return;
    ended = true;
    if (!detached) failure = note;
    if (stdin.isTTY) stdin.setRawMode(false);
    stdin.pause();
    stdin.removeAllListeners('data');
    process.stdout.off('resize', onResize);
    io.out(ALT_SCREEN_OFF + TITLE_RESTORE);
    if (detached) io.err(`${note}\n`);
    conn.close();
  };
  const done = (): void => {
    if (failure) throw new JobError(failure);
  };
  io.err(`[attached to ${short} · Ctrl-] detaches and leaves it running]\n`);
  // The detach key stays in the outer terminal's title while the view runs (given back after).
  io.out(TITLE_SAVE + viewTitle(short) + ALT_SCREEN_ON);
  conn.send({ op: 'attach', ...size() });
  if (stdin.isTTY) stdin.setRawMode(true);
  stdin.resume();
  stdin.on('data', (d: Buffer) => {
    const text = d.toString('utf8');
    const cut = text.indexOf(DETACH_KEY);
    if (cut < 0) return conn.send({ op: 'input', data: text });
    if (cut > 0) conn.send({ op: 'input', data: text.slice(0, cut) });
    end(`[detached from ${short}; it keeps running]`, true);
  });
  process.stdout.on('resize', onResize);
  for (;;) {
    let m: Awaited<ReturnType<typeof conn.next>>;
    try {
      m = await conn.next(0);
    } catch (err) {
      if (!ended) end(lost(err));
      return done();
    }
    if (m.type === 'screen') {
      io.out(
        `${viewTitle(short, m.title)}\x1b[H\x1b[2J${m.lines.join('\r\n')}\x1b[${m.cursor.y + 1};${m.cursor.x + 1}H`,
      );
    } else if (m.type === 'output') {
      io.out(withViewTitles(m.data, short));
    } else if (m.type === 'exit') {
      end(`${short} exited with status ${m.code}`);
      return done();
    } else if (m.type === 'error') {
      end(`${short}: ${m.error}`);
      return done();
    }
  }
}
