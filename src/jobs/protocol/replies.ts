// What the daemon and the hosts answer (a remote host's too, through its link): each type of answer
// and its fields' checks, which make the replies' types (Reply), none written beside them. Every
// connection starts with a `hello` from the server.
import type { Check, Checked, MessageOf, MessagesOf, Schemas } from '../../shared/checks.js';
import { bool, eventGuard, int, isObj, num, oneOf, optional, shape, str, strings } from '../../shared/checks.js';
import { shortIdCheck } from '../../shared/fleet-id.js';
import { daemonRoutes } from '../../shared/route-check.js';
import type { JobFile } from '../types.js';
import { validateJob } from '../validate.js';

/** A job as the daemon lists it: its file, whether its host lives, and why it cannot be read. */
export type ListedJob = JobFile & { alive: boolean; error?: string };

/** The most jobs one list holds (a host's too). */
export const MAX_LISTED_JOBS = 2000;

/** A listed job as another process sent it, checked as a job file is; or why it is none. */
export function listedJobOf(v: unknown): ListedJob | string {
  if (!isObj(v)) return 'a job is an object';
  const { alive, error, ...file } = v;
  if (typeof alive !== 'boolean') return "a job's alive must be true or false";
  if (error !== undefined && typeof error !== 'string') return "a job's error must be a string";
  const checked = validateJob(file);
  if (!checked.ok) return checked.error;
  return { ...checked.job, alive, ...(error === undefined ? {} : { error: error.slice(0, 200) }) };
}

/**
 * A daemon's list of jobs: each one was checked as a job file when the daemon read it (its own
 * folder's, or a host's list through its link: listedJobsOf), so here each is checked for what names
 * it (its id, which becomes a path) and whether it lives — a whole check again cost `mado agents
 * --all` 30 ms for 600 jobs, a cold process's JIT. A remote host's lists come as the bridge's events,
 * checked whole.
 */
const listedJobs: Check<ListedJob[]> = (v) =>
  Array.isArray(v) &&
  v.length <= MAX_LISTED_JOBS &&
  v.every((j) => isObj(j) && shortIdCheck(j.short) === null && typeof j.alive === 'boolean')
    ? null
    : `a list of at most ${MAX_LISTED_JOBS} jobs, each with its id and whether it lives`;

/** A job's file as its host wrote it, checked as a job file is read. */
const jobFile: Check<JobFile> = (v) => {
  const checked = validateJob(v);
  return checked.ok ? null : checked.error;
};

const count = int(0, Number.MAX_SAFE_INTEGER);
const onlineListing = shape({ host: str, jobs: listedJobs, version: optional(str) }, '{ host, jobs, version? }');
const offlineListing = shape({ host: str, offline: str }, '{ host, offline }');
/**
 * One machine's part of a listing of every host: its jobs (and its mado's version), or why they could not
 * be listed.
 */
export type HostListing = Checked<typeof onlineListing> | Checked<typeof offlineListing>;
export const hostListings: Check<HostListing[]> = (v) =>
  Array.isArray(v) && v.length <= 256 && v.every((h) => onlineListing(h) === null || offlineListing(h) === null)
    ? null
    : 'a list of hosts, each its jobs or why it is offline';

const REPLIES = {
  hello: { role: oneOf('daemon', 'host'), pid: count },
  ok: {
    short: optional(shortIdCheck),
    warning: optional(str),
    /** `stop`/`kill`: whether the agent had ended when the answer was sent. */
    ended: optional(bool),
    /** `send`: the reply waits (for the agent's turn to end, or for a draft to go). */
    queued: optional(bool),
    /** `send`: why it waits (`queued`, `held: draft`); '' when sent. */
    pending: optional(str),
    /** `choose`: the text of the choice made, as the screen showed it. */
    option: optional(str),
  },
  error: { error: str },
  jobs: { jobs: listedJobs },
  /** `watch`: the job's file as its host has just written it (first as it is). */
  job: { job: jobFile },
  screen: { lines: strings, title: str, cursor: shape({ x: num, y: num }, '{ x, y }') },
  /** A remote verb's output: its standard error (`fd` 2), its standard output otherwise. */
  output: { data: str, fd: optional<1 | 2>((v) => (v === 1 || v === 2 ? null : '1 or 2')) },
  exit: { code: int(-1, 255) },
  /**
   * The text a person would read: `settled` of its lines have left the screen (the rest is the screen);
   * `whole` false when the host's model has let its oldest rows go (its output log has them).
   */
  text: { lines: strings, settled: count, whole: optional(bool) },
  /** `pendingBytes`: what waits in the host for its attached clients (bounded: see serve.ts). */
  status: { pid: count, ptyPid: count, clients: count, pendingBytes: count },
  /** The daemon's routes (all of them, or the one just added); what was wrong with routes.json when it read it. */
  routes: { routes: daemonRoutes, problems: optional(strings) },
  /** Every remote host's jobs, as the daemon's links listed them. */
  hosts: { hosts: hostListings },
} satisfies Schemas;

type Replies = MessagesOf<typeof REPLIES, 'type'>;
export type Reply = MessageOf<typeof REPLIES, 'type'>;
export type Hello = Replies['hello'];
export type ScreenReply = Replies['screen'];

const replyOf = eventGuard(REPLIES);

/** The reply, or why `value` is none: every field checked (a remote host's job host answers through its link). */
export function asReply(value: unknown): Reply | string {
  return replyOf(value);
}
