// The link to a remote host: what this side asks `mado bridge` on the other side, what the bridge
// answers, and the guard each passes. Newline-delimited JSON with the protocol version, as every
// MadoHub socket speaks (codec.ts), over the standard input and output of the host's command. One
// link carries many channels: each request and each answer names its channel.
import type { Check, MessageOf, Schemas } from '../../shared/checks.js';
import {
  eventGuard,
  int,
  isObj,
  messageGuard,
  object,
  optional,
  pattern,
  str,
  strMax,
  stringsMax,
} from '../../shared/checks.js';
import { HOST_NAME } from './hosts.js';
import { printable } from '../../shared/text.js';
import { listedJobOf, MAX_LISTED_JOBS } from '../protocol/replies.js';
import type { ListedJob } from '../protocol/replies.js';

/** The most channels one link keeps open at once. */
export const MAX_CHANNELS = 64;
/** The largest message either side takes: a screen, an output chunk, a list of jobs. */
export const MAX_LINK_MESSAGE = 8 * 1024 * 1024;
/** The most jobs a host's list may hold. */
export const MAX_REMOTE_JOBS = MAX_LISTED_JOBS;
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

/** Variables of this side that a job names: 64 at most, each a name and a value of 64 KiB at most. */
const variables: Check<Record<string, string>> = (v) =>
  isObj(v) &&
  Object.keys(v).length <= 64 &&
  Object.entries(v).every(
    ([k, x]) => /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(k) && typeof x === 'string' && x.length <= 65536,
  )
    ? null
    : 'a table of at most 64 variables';

/**
 * What this side asks the bridge, each op and its fields' checks: the requests' types are made by
 * these checks (BridgeRequest), none is written beside them.
 */
const BRIDGE_REQUESTS = {
  /** Lists the host's jobs as `mado agents --json` would. */
  list: { ch },
  /** Follows the host's jobs: a `jobs` message now and after each change, until the channel closes. */
  watch: { ch },
  /**
   * Runs `mado VERB …` there (its output comes back as `out`, its end as `exit`). `as`: the name this
   * side gives the host (the verb's hints name it: `mado --host NAME attach …`); `env`: variables of
   * this side that the job names ($MADOHUB_JOB_ENV): nothing else of this side's environment crosses.
   */
  verb: {
    ch,
    argv: stringsMax(256),
    stdin: optional(strMax(MAX_VERB_STDIN)),
    cwd: optional(strMax(4096)),
    as: optional(pattern(HOST_NAME, 'a host name')),
    env: optional(variables),
  },
  /** Opens a connection to a job's host there (by id, prefix or name); it then speaks the host protocol in `msg`. */
  host: { ch, id: strMax(200) },
  /**
   * One request of the job service (jobs/client/service.ts) for that machine's daemon, started when
   * none runs: its reply comes as one `msg`, then the channel closes. A dispatch's or respawn's `env`
   * is filled there (that machine's, and `env`: what the job names of this side's); a dispatch's
   * empty `cwd` is `cwd` there (the host's setting), else the bridge's folder.
   */
  daemon: { ch, req: object, cwd: optional(strMax(4096)), env: optional(variables) },
  /**
   * One operation of that machine's registry (src/ops/), by name, with its arguments as they are: its
   * result comes as one `msg` (`{ type: 'result', result }`, or `{ type: 'error', error }`), then the
   * channel closes. `cwd`: the folder it runs in there (the host's setting; none: the bridge's), as a
   * job dispatched with no folder of its own takes it.
   */
  run: { ch, name: strMax(64), args: object, cwd: optional(strMax(4096)) },
  /** A message on an open host channel. */
  msg: { ch, msg: object },
  close: { ch },
  ping: { ch: int(0, 1_000_000_000) },
} satisfies Schemas;

export type BridgeRequest = MessageOf<typeof BRIDGE_REQUESTS>;

/** The request, or why the message is none (the bridge ends the link with it). */
export const parseBridgeRequest = messageGuard(BRIDGE_REQUESTS);

/** A list's jobs, not checked yet (see listedJobsOf): a list a newer one replaced is never checked. */
const listed: Check<readonly unknown[]> = (v) =>
  Array.isArray(v) && v.length <= MAX_REMOTE_JOBS ? null : `a list of at most ${MAX_REMOTE_JOBS} jobs`;
const fd: Check<1 | 2> = (v) => (v === 1 || v === 2 ? null : '1 or 2');
/** Channel 0 is the link's own: its pongs, and the bridge's last word when it ends the link. */
const ch0 = int(0, 1_000_000_000);

/** What the bridge answers and tells, each type and its fields' checks (they make BridgeEvent). */
const BRIDGE_EVENTS = {
  pong: { ch: ch0 },
  /** A host's list of jobs. */
  jobs: { ch, jobs: listed },
  out: { ch, fd, data: str },
  exit: { ch, code: int(-1, 255) },
  msg: { ch, msg: object },
  closed: { ch: ch0, error: optional(str) },
} satisfies Schemas;

export type BridgeEvent = MessageOf<typeof BRIDGE_EVENTS, 'type'>;
const eventOf = eventGuard(BRIDGE_EVENTS);

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
  const event = eventOf(v);
  // Its last word is said to the user: bounded.
  if (typeof event !== 'string' && event.type === 'closed' && event.error !== undefined)
    return { ...event, error: event.error.slice(0, 500) };
  return event;
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
export const BRIDGE_OPS = Object.keys(BRIDGE_REQUESTS);
