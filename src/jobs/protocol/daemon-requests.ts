// What a client asks the daemon, and the guard that every request passes before the daemon acts.
import type { Check } from '../../shared/checks.js';
import {
  bool,
  int,
  isObj,
  num,
  oneOf,
  optional,
  pattern,
  requestGuard,
  shape,
  str,
  strMax,
  stringMap,
  strings,
  stringsMax,
} from '../../shared/checks.js';
import { UUID } from '../types.js';
import { shortIdCheck } from '../../shared/fleet-id.js';
import { HOST_NAME } from '../../shared/types.js';
import type { JobOrigin } from '../types.js';
import type { RouteRequest } from '../../shared/route-types.js';
import { JOB_ORIGINS } from '../types.js';
import type { Isolation } from '../../agents/types.js';
import { ISOLATIONS } from '../../agents/types.js';

/** How long `stop` waits for the agent to end (its interrupt, SIGTERM at 1 s, SIGKILL at 4 s), and `kill`. */
export const STOP_WAIT_MS = 8000;

export type { Isolation };

/** How a job's agent starts: with a prompt, or resuming one of its sessions. */
export type LaunchMode =
  | { mode: 'prompt'; args: string[] }
  /** `prompt`: typed into the resumed session once it is up. */
  | { mode: 'resume'; sessionId: string; fork: boolean; flagArgs: string[]; prompt?: string };

export interface DispatchRequest {
  op: 'dispatch';
  short: string;
  sessionId: string;
  createdAt: number;
  origin: JobOrigin;
  cwd: string;
  launch: LaunchMode;
  respawnFlags: string[];
  /** The environment the agent gets: already cut to the job's names by the client (see env.ts). */
  env: Record<string, string>;
  worktree?: { branch?: string };
  /** `worktree` runs the job in a git worktree of its own; absent: its template's, else `none`. */
  isolation?: Isolation;
  agent?: string;
  seed: { intent: string; name?: string };
  cols?: number;
  rows?: number;
  /** Only look whether it would start (template, folder, prompt, program): nothing is made. */
  check?: boolean;
}

export interface ListRequest {
  op: 'list';
}

/** `stop` waits (bounded) until the agent has ended unless `wait` is false; `kill` always does. */
export interface StopRequest {
  op: 'stop' | 'kill';
  short: string;
  wait?: boolean;
}

export interface RespawnRequest {
  op: 'respawn';
  short: string;
  env: Record<string, string>;
}

export interface RemoveRequest {
  op: 'remove';
  short: string;
  force: boolean;
}

/** A route between jobs (or from a job to a file), kept by the daemon: see src/routes. */
export type RouteAddRequest = {
  op: 'route-add' /** The user's named templates. */;
  templates?: Record<string, string>;
} & Omit<RouteRequest, 'review'>;
export interface RouteListRequest {
  op: 'route-list';
}
export interface RouteRemoveRequest {
  op: 'route-remove';
  id: string;
}
/**
 * Every remote host's jobs, through the daemon's links (kept between asks: `mado agents --all`); the
 * hosts as the asking client reads them (its hosts.json), checked again by the daemon.
 */
export interface RemoteListRequest {
  op: 'remote-list';
  hosts: Record<string, unknown>;
}

/**
 * A `mado` verb run on a remote host through the daemon's link to it (opened on first use, kept while
 * used): its output comes back as `output` replies (`fd` 2 for its errors), its end as `exit`.
 */
export interface RemoteVerbRequest {
  op: 'remote-verb';
  host: string;
  /** The host as the asking client's hosts.json names it (checked again by the daemon). */
  config: Record<string, unknown>;
  argv: string[];
  stdin?: string;
  cwd?: string;
  env?: Record<string, string>;
}

export type DaemonRequest =
  | DispatchRequest
  | ListRequest
  | StopRequest
  | RespawnRequest
  | RemoveRequest
  | RouteAddRequest
  | RouteListRequest
  | RouteRemoveRequest
  | RemoteListRequest
  | RemoteVerbRequest;

const short = shortIdCheck;
const size = optional(int(2, 1000));
const resumeLaunch = shape(
  { sessionId: str, fork: bool, flagArgs: strings, prompt: optional(str) },
  'a launch {mode: "resume", sessionId, fork, flagArgs, prompt?}',
);
const launch: Check = (v) => {
  if (isObj(v) && v.mode === 'prompt') return strings(v.args) === null ? null : 'a launch {mode: "prompt", args}';
  if (isObj(v) && v.mode === 'resume') return resumeLaunch(v);
  return 'a launch of mode "prompt" or "resume"';
};

const SCHEMAS: Record<DaemonRequest['op'], Record<string, Check>> = {
  list: {},
  dispatch: {
    short,
    sessionId: pattern(UUID, 'a UUID'),
    createdAt: num,
    origin: oneOf(...JOB_ORIGINS),
    cwd: pattern(/^\//, 'an absolute path'),
    launch,
    respawnFlags: strings,
    env: stringMap,
    worktree: optional(shape({ branch: optional(str) }, '{branch?}')),
    isolation: optional(oneOf(...ISOLATIONS)),
    agent: optional(str),
    seed: shape({ intent: str, name: optional(str) }, '{intent, name?}'),
    cols: size,
    rows: size,
    check: optional(bool),
  },
  stop: { short, wait: optional(bool) },
  kill: { short },
  respawn: { short, env: stringMap },
  remove: { short, force: bool },
  'route-add': {
    source: strMax(64),
    target: strMax(4096),
    targetName: optional(strMax(200)),
    on: optional(strMax(20)),
    send: optional(strMax(20)),
    template: optional(strMax(40)),
    hops: optional(int(1, 100)),
    once: optional(bool),
    templates: optional(stringMap),
  },
  'route-list': {},
  'route-remove': { id: strMax(16) },
  'remote-verb': {
    host: pattern(HOST_NAME, 'a host name'),
    config: (v) => (isObj(v) ? null : 'a host'),
    argv: stringsMax(256),
    stdin: optional(str),
    cwd: optional(strMax(4096)),
    env: optional(stringMap),
  },
  'remote-list': { hosts: (v) => (isObj(v) && Object.keys(v).length <= 64 ? null : 'a table of at most 64 hosts') },
};

/** The request, or why it is not one (said back to the client as it is). */
export const parseDaemonRequest = requestGuard<DaemonRequest>(SCHEMAS);
