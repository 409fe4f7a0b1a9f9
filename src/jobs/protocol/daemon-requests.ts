// What a client asks the daemon, and the guard that every request passes before the daemon acts.
import type { Check, Checked, MessageOf, MessagesOf, Schemas } from '../../shared/checks.js';
import {
  bool,
  int,
  isObj,
  messageGuard,
  num,
  oneOf,
  optional,
  pattern,
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
import { JOB_ORIGINS } from '../types.js';
import { ISOLATIONS } from '../../agents/types.js';

/** How long `stop` waits for the agent to end (its interrupt, SIGTERM at 1 s, SIGKILL at 4 s), and `kill`. */
export const STOP_WAIT_MS = 8000;

const short = shortIdCheck;
const size = optional(int(2, 1000));
const promptLaunch = shape({ mode: oneOf('prompt'), args: strings }, 'a launch {mode: "prompt", args}');
/** `prompt`: typed into the resumed session once it is up. */
const resumeLaunch = shape(
  { mode: oneOf('resume'), sessionId: str, fork: bool, flagArgs: strings, prompt: optional(str) },
  'a launch {mode: "resume", sessionId, fork, flagArgs, prompt?}',
);
/** How a job's agent starts: with a prompt, or resuming one of its sessions. */
export type LaunchMode = Checked<typeof promptLaunch> | Checked<typeof resumeLaunch>;
const launch: Check<LaunchMode> = (v) =>
  isObj(v) && v.mode === 'resume'
    ? resumeLaunch(v)
    : isObj(v) && v.mode === 'prompt'
      ? promptLaunch(v)
      : 'a launch of mode "prompt" or "resume"';
/** A table of hosts, or one host, as the asking client's hosts.json names them (checked again by the daemon). */
const hosts: Check<Record<string, unknown>> = (v) =>
  isObj(v) && Object.keys(v).length <= 64 ? null : 'a table of at most 64 hosts';

/**
 * What a client asks the daemon, each op and its fields' checks: the requests' types are made by
 * these checks (DaemonRequest and the types below), none is written beside them.
 */
/** A route's options as a request names them (`mado route add`'s too), each bounded; the routes check their words. */
export const ROUTE_OPTIONS = {
  on: optional(strMax(20)),
  send: optional(strMax(20)),
  template: optional(strMax(40)),
  hops: optional(int(1, 100)),
  once: optional(bool),
};

const DAEMON_REQUESTS = {
  list: {},
  /**
   * A job to start. `env`: the environment the agent gets, already cut to the job's names by the
   * client (see env.ts); `isolation`: `worktree` runs the job in a git worktree of its own (absent:
   * its template's, else `none`); `check`: only look whether it would start (template, folder,
   * prompt, program): nothing is made.
   */
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
  /** `stop` waits (bounded) until the agent has ended unless `wait` is false; `kill` always does. */
  stop: { short, wait: optional(bool) },
  kill: { short },
  respawn: { short, env: stringMap },
  remove: { short, force: bool },
  /** A route between jobs (or from a job to a file), kept by the daemon (see src/routes); `templates`: the user's. */
  'route-add': {
    source: strMax(64),
    target: strMax(4096),
    targetName: optional(strMax(200)),
    ...ROUTE_OPTIONS,
    templates: optional(stringMap),
  },
  'route-list': {},
  'route-remove': { id: strMax(16) },
  /**
   * A `mado` verb run on a remote host through the daemon's link to it (opened on first use, kept
   * while used): its output comes back as `output` replies (`fd` 2 for its errors), its end as `exit`.
   */
  'remote-verb': {
    host: pattern(HOST_NAME, 'a host name'),
    config: hosts,
    argv: stringsMax(256),
    stdin: optional(str),
    cwd: optional(strMax(4096)),
    env: optional(stringMap),
  },
  /**
   * Every remote host's jobs, through the daemon's links (kept between asks: `mado agents --all`).
   */
  'remote-list': { hosts },
} satisfies Schemas;

type Requests = MessagesOf<typeof DAEMON_REQUESTS>;
export type DaemonRequest = MessageOf<typeof DAEMON_REQUESTS>;
export type DispatchRequest = Requests['dispatch'];
export type StopRequest = Requests['stop'] | Requests['kill'];
export type RespawnRequest = Requests['respawn'];
export type RemoveRequest = Requests['remove'];
export type RouteAddRequest = Requests['route-add'];
export type RouteRemoveRequest = Requests['route-remove'];
export type RemoteVerbRequest = Requests['remote-verb'];

/** The request, or why it is not one (said back to the client as it is). */
export const parseDaemonRequest = messageGuard(DAEMON_REQUESTS);
