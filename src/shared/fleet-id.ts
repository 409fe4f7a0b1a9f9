// The ids of the fleet, made and read here only (every side uses this codec; Lua reads the fields an
// entry carries, never its id):
//   term:<buf>                a terminal of this Neovim
//   job:<short>               a job of this machine
//   job:<host>:<short>        a job of a remote host (HOST_NAME_PART)
//   <agent>:<session id>      an agent's session elsewhere on this machine (its agent's id first)
//   nvim:<pid>:<buf>          a terminal of another Neovim
// and, as a route's target only:
//   buf:<n>                   a buffer that is no terminal
//   file:<absolute path>      a file
// The words of the other kinds are never an agent's id (fleet-id.test says so).
import type { Check } from './checks.js';
import { pattern } from './checks.js';
import { HOST_NAME_PART } from './types.js';

/** A job's short id: 8 lowercase hex digits. Its pattern is written here, and nowhere else. */
export const SHORT_ID_PART = '[0-9a-f]{8}';
export const SHORT_ID = new RegExp(`^${SHORT_ID_PART}$`);
/** The check of a job's short id in a message or a result. */
export const shortIdCheck: Check<string> = pattern(SHORT_ID, 'a job id (8 lowercase hex digits)');

/** The words that begin an id of a kind other than a session's: no agent's id may be one of them. */
export const ID_KINDS = ['term', 'job', 'nvim', 'buf', 'file'] as const;

export type FleetId =
  | { kind: 'term'; buf: number }
  /** `host` is '' for this machine's. */
  | { kind: 'job'; short: string; host: string }
  | { kind: 'session'; agent: string; session: string }
  | { kind: 'editor'; pid: number; buf: number }
  | { kind: 'buf'; buf: number }
  | { kind: 'file'; path: string };
export type FleetIdKind = FleetId['kind'];

export const termId = (buf: number): string => `term:${buf}`;
export const jobId = (short: string, host = ''): string => (host ? `job:${host}:${short}` : `job:${short}`);
export const sessionId = (agent: string, session: string): string => `${agent}:${session}`;
export const editorId = (pid: number, buf: number): string => `nvim:${pid}:${buf}`;
export const bufId = (buf: number): string => `buf:${buf}`;
export const fileId = (absolutePath: string): string => `file:${absolutePath}`;

const NUMBER = '(\\d{1,9})';
const TERM = new RegExp(`^term:${NUMBER}$`);
const JOB = new RegExp(`^job:(?:(${HOST_NAME_PART}):)?(${SHORT_ID_PART})$`);
const EDITOR = new RegExp(`^nvim:${NUMBER}:${NUMBER}$`);
const BUF = new RegExp(`^buf:${NUMBER}$`);
const SESSION = /^([a-z][a-z0-9-]{0,31}):([^\s:][^\s]{0,127})$/;

/** What an id names, with its parts; undefined when it is no id of the fleet's. */
export function parseFleetId(id: string): FleetId | undefined {
  if (id.length > 4200) return undefined;
  let m: RegExpExecArray | null;
  if ((m = TERM.exec(id))) return { kind: 'term', buf: Number(m[1]) };
  if ((m = JOB.exec(id))) return { kind: 'job', short: m[2]!, host: m[1] ?? '' };
  if ((m = EDITOR.exec(id))) return { kind: 'editor', pid: Number(m[1]), buf: Number(m[2]) };
  if ((m = BUF.exec(id))) return { kind: 'buf', buf: Number(m[1]) };
  if (id.startsWith('file:/')) return { kind: 'file', path: id.slice(5) };
  if ((m = SESSION.exec(id)) && !(ID_KINDS as readonly string[]).includes(m[1]!))
    return { kind: 'session', agent: m[1]!, session: m[2]! };
  return undefined;
}

/** A terminal's buffer, for `term:<buf>`; undefined for any other id. */
export function termBuf(id: string): number | undefined {
  const v = parseFleetId(id);
  return v?.kind === 'term' ? v.buf : undefined;
}

/** A job's short id and host ('' for this machine's), for `job:…`; undefined for any other id. */
export function jobOf(id: string): { short: string; host: string } | undefined {
  const v = parseFleetId(id);
  return v?.kind === 'job' ? { short: v.short, host: v.host } : undefined;
}

/** A job of this machine's short id, for `job:<short>`; undefined for any other id (a remote job's too). */
export function localJobShort(id: string): string | undefined {
  const v = parseFleetId(id);
  return v?.kind === 'job' && v.host === '' ? v.short : undefined;
}

/**
 * What a route may join: sources and targets, as the kinds of id they may be (a job, this machine's
 * or any host's as `job` says).
 */
export interface IdKinds {
  kinds: readonly FleetIdKind[];
  /** Whether a job of a remote host is one. */
  remoteJobs: boolean;
}

/** Whether `id` is of one of these kinds. */
export function idIsOf(id: string, of: IdKinds): boolean {
  const v = parseFleetId(id);
  if (!v || !of.kinds.includes(v.kind)) return false;
  return v.kind !== 'job' || v.host === '' || of.remoteJobs;
}

/**
 * An entry's key in the review's records (issue 29), a file name and a git ref's part: a job's
 * `job-<short>`; a terminal's `term-<pid>-<buf>` (pid: the Neovim side's process, for buffer numbers
 * come again in the next Neovim). Undefined for a kind the review does not record.
 */
export function reviewKey(id: FleetId, pid: number = process.pid): string | undefined {
  if (id.kind === 'job') return `job-${id.short}`;
  if (id.kind === 'term') return `term-${pid}-${id.buf}`;
  return undefined;
}
