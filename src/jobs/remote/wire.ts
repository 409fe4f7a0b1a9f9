// The link to a remote host: what this side asks `mado bridge` on the other side, what the bridge
// answers, and the guard each passes. Newline-delimited JSON with the protocol version, as every
// MadoHub socket speaks (codec.ts), over the standard input and output of the host's command. One
// link carries many channels: each request and each answer names its channel.
import type { Check } from '../../shared/checks.js';
import {
  int,
  isObj,
  optional,
  pattern,
  requestGuard,
  str,
  stringMap,
  strMax,
  stringsMax,
} from '../../shared/checks.js';
import { HOST_NAME } from './hosts.js';
import { printable } from '../../shared/text.js';
import { validateJob } from '../validate.js';
import type { ListedJob } from '../protocol/replies.js';

/** The most channels one link keeps open at once. */
export const MAX_CHANNELS = 64;
/** The largest message either side takes: a screen, an output chunk, a list of jobs. */
export const MAX_LINK_MESSAGE = 8 * 1024 * 1024;
/** The most jobs a host's list may hold. */
export const MAX_REMOTE_JOBS = 2000;
/**
 * A followed host's lists are bounded by the jobs they hold: the bridge sends, and this side checks
 * and shows, the newest list once the one before has had its time, 1 ms for every LISTED_PER_MS
 * jobs in it (a host re-listing 2,000 jobs every 100 ms kept Neovim's Node process at 54–87% of a
 * core; now its lists come 500 ms apart, while a host of 50 jobs is shown within 13 ms).
 */
const LISTED_PER_MS = 4;
export const listGapMs = (jobsInLast: number): number => Math.min(MAX_REMOTE_JOBS, jobsInLast) / LISTED_PER_MS;
/** Standard input given to a verb (a reply, a prompt). */
export const MAX_VERB_STDIN = 1024 * 1024;

const ch = int(1, 1_000_000_000);

/** Lists the host's jobs as `mado agents --json` would. */
export interface ListOp {
  op: 'list';
  ch: number;
}
/** Follows the host's jobs: a `jobs` message now and after each change, until the channel closes. */
export interface WatchOp {
  op: 'watch';
  ch: number;
}
/** Runs `mado VERB …` there (its output comes back as `out`, its end as `exit`). */
export interface VerbOp {
  op: 'verb';
  ch: number;
  argv: string[];
  stdin?: string;
  cwd?: string;
  /** The name this side gives the host: the verb's hints name it (`mado --host NAME attach …`). */
  as?: string;
  /** Variables of this side that the job names ($MADOHUB_JOB_ENV): nothing else of this side's environment crosses. */
  env?: Record<string, string>;
}
/**
 * Opens a connection to a job's host there (by id, prefix or name), which then speaks the host protocol
 * through `msg`.
 */
export interface HostOp {
  op: 'host';
  ch: number;
  id: string;
}
/**
 * One request of the job service (jobs/client/service.ts) for that machine's daemon, started when none runs:
 * its reply comes as one `msg`, then the channel closes. A dispatch's or respawn's `env` is filled
 * there (that machine's, and `env`: what the job names of this side's); a dispatch's empty `cwd` is
 * `cwd` there (the host's setting), else the bridge's folder.
 */
export interface DaemonOp {
  op: 'daemon';
  ch: number;
  req: Record<string, unknown>;
  cwd?: string;
  env?: Record<string, string>;
}
/**
 * One operation of that machine's registry (src/ops/), by name, with its arguments as they are: its
 * result comes as one `msg` (`{ type: 'result', result }`, or `{ type: 'error', error }`), then the
 * channel closes.
 */
export interface RunOp {
  op: 'run';
  ch: number;
  name: string;
  args: Record<string, unknown>;
}
/** A message on an open host channel. */
export interface MsgOp {
  op: 'msg';
  ch: number;
  msg: Record<string, unknown>;
}
export interface CloseOp {
  op: 'close';
  ch: number;
}
export interface PingOp {
  op: 'ping';
  ch: number;
}

export type BridgeRequest = ListOp | WatchOp | VerbOp | HostOp | DaemonOp | RunOp | MsgOp | CloseOp | PingOp;

const object: Check = (v) => (isObj(v) ? null : 'an object');
/** Variables of this side that a job names: 64 at most, each a name and a value of 64 KiB at most. */
const variables: Check = (v) =>
  stringMap(v) === null &&
  Object.keys(v as object).length <= 64 &&
  Object.entries(v as Record<string, string>).every(
    ([k, x]) => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(k) && x.length <= 65536,
  )
    ? null
    : 'a table of at most 64 variables';
const SCHEMAS: Record<BridgeRequest['op'], Record<string, Check>> = {
  list: { ch },
  watch: { ch },
  verb: {
    ch,
    argv: stringsMax(256),
    stdin: optional(strMax(MAX_VERB_STDIN)),
    cwd: optional(strMax(4096)),
    as: optional(pattern(HOST_NAME, 'a host name')),
    env: optional(variables),
  },
  host: { ch, id: strMax(200) },
  daemon: { ch, req: object, cwd: optional(strMax(4096)), env: optional(variables) },
  run: { ch, name: strMax(64), args: object },
  msg: { ch, msg: object },
  close: { ch },
  ping: { ch: int(0, 1_000_000_000) },
};

/** The request, or why the message is none (the bridge ends the link with it). */
export const parseBridgeRequest = requestGuard<BridgeRequest>(SCHEMAS);

export type BridgeEvent =
  | { type: 'pong'; ch: number }
  /** A host's list, its jobs not checked yet (see listedJobsOf): a list a newer one replaced is never checked. */
  | { type: 'jobs'; ch: number; jobs: readonly unknown[] }
  | { type: 'out'; ch: number; fd: 1 | 2; data: string }
  | { type: 'exit'; ch: number; code: number }
  | { type: 'msg'; ch: number; msg: Record<string, unknown> }
  | { type: 'closed'; ch: number; error?: string };

/** A job of another machine, checked as a job file is (a hostile host's list is refused whole). */
function listedJobOf(v: unknown): ListedJob | string {
  if (!isObj(v)) return 'a job is an object';
  const { alive, error, ...file } = v;
  if (typeof alive !== 'boolean') return "a job's alive must be true or false";
  if (error !== undefined && typeof error !== 'string') return "a job's error must be a string";
  const checked = validateJob(file);
  if (!checked.ok) return checked.error;
  return { ...checked.job, alive, ...(error === undefined ? {} : { error: error.slice(0, 200) }) };
}

/**
 * A host's listed jobs, each checked as a job file is, or why the list is none (refused whole). Some
 * 10 µs a job: a list of 2,000 costs 20 ms, so a followed host's lists are checked as listGapMs
 * allows (the newest), not as they come.
 */
export function listedJobsOf(list: readonly unknown[]): ListedJob[] | string {
  const jobs: ListedJob[] = [];
  for (const j of list) {
    const job = listedJobOf(j);
    if (typeof job === 'string') return `a job it listed is none: ${job}`;
    jobs.push(job);
  }
  return jobs;
}

/** The bridge's event, or why the message is none (this side then drops the link). */
export function parseBridgeEvent(v: unknown): BridgeEvent | string {
  if (!isObj(v) || typeof v.type !== 'string') return 'a message with no type';
  // Channel 0 is the link's own: its pongs, and the bridge's last word when it ends the link.
  const chOk = ch(v.ch) === null || ((v.type === 'pong' || v.type === 'closed') && v.ch === 0);
  if (!chOk) return `a message '${v.type.slice(0, 20)}' with no channel`;
  const c = v.ch as number;
  switch (v.type) {
    case 'pong':
      return { type: 'pong', ch: c };
    case 'jobs':
      if (!Array.isArray(v.jobs) || v.jobs.length > MAX_REMOTE_JOBS) return `a list of at most ${MAX_REMOTE_JOBS} jobs`;
      return { type: 'jobs', ch: c, jobs: v.jobs };
    case 'out':
      if ((v.fd !== 1 && v.fd !== 2) || str(v.data) !== null) return 'output with no fd or data';
      return { type: 'out', ch: c, fd: v.fd, data: v.data as string };
    case 'exit':
      if (int(-1, 255)(v.code) !== null) return 'an exit with no status';
      return { type: 'exit', ch: c, code: v.code as number };
    case 'msg':
      if (!isObj(v.msg)) return 'a channel message that is no object';
      return { type: 'msg', ch: c, msg: v.msg };
    case 'closed':
      if (v.error !== undefined && typeof v.error !== 'string') return 'a close whose error is no text';
      return { type: 'closed', ch: c, ...(typeof v.error === 'string' ? { error: v.error.slice(0, 500) } : {}) };
    default:
      return `an unknown message '${v.type.slice(0, 20)}'`;
  }
}

/** The bridge's hello, or undefined when `v` is none. */
export function bridgeHelloOf(v: unknown): { version: string; proto: unknown; pid: number; ops: string[] } | undefined {
  if (!isObj(v) || v.type !== 'hello' || v.role !== 'bridge') return undefined;
  return {
    // Printed and shown as it is (`mado host check`, :checkhealth): printable only.
    version: typeof v.version === 'string' ? printable(v.version, 40) : 'unknown',
    proto: v.proto,
    pid: typeof v.pid === 'number' ? v.pid : 0,
    // The requests it serves (BRIDGE_OPS; named since the daemon's were added: an older bridge names none).
    ops: Array.isArray(v.ops) ? v.ops.filter((o): o is string => typeof o === 'string').slice(0, 32) : [],
  };
}

/** The requests a bridge serves, named in its hello. */
export const BRIDGE_OPS = Object.keys(SCHEMAS);
