// One entry of the fleet: an agent MadoHub can show and steer, wherever it runs. Pure mappings from
// what each kind's owner knows (the tracker for terminals, the job files for jobs).
import { asPending } from '../shared/pending.js';
import type { Pending } from '../shared/pending.js';
import { INTERRUPTED, isConfirmed } from '../shared/types.js';
import type { AgentId, AgentState, StateSource } from '../shared/types.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import type { TerminalState } from '../state/tracker.js';
import { jobId, termId } from '../shared/fleet-id.js';
import type { PriceLookup } from '../usage/prices.js';
import type { UsageTally } from '../usage/tally.js';
import type { Usage } from '../usage/types.js';
import { usageView } from '../usage/view.js';

/**
 * What every entry carries, whatever its kind. The wire is flat (every field in every entry, Lua reads
 * them so); each kind below says which of them it fills and which stay empty.
 */
export interface EntryFields {
  /** `term:<buf>`, `job:<id>` (`job:<host>:<id>` on a remote host), `claude:<session id>` or `nvim:<pid>:<buf>`. */
  id: string;
  name: string;
  /** The user gave `name` (`R`, `mado --bg -n`), not MadoHub: the winbar shows it then. */
  named: boolean;
  /** What the agent was asked to do: a job's intent, the prompt a terminal's agent echoed; '' when unknown. */
  intent: string;
  agent: AgentId;
  /** The agent's state (a job's status and tempo in the agents' words). */
  state: AgentState;
  source: StateSource | 'job-file';
  /** The agent's own records say this state (derived from `source`: see isConfirmed). */
  confirmed: boolean;
  /** Epoch ms when `state` began (for a job: its job file's last change). */
  since: number;
  cwd: string;
  detail: string;
  /** What a waiting agent asks, when known. */
  needs: { question: string; options: string[] } | null;
  /** For a person: `buffer 12`, `job`, `job in buffer 12`, `pid 4711`, `nvim 4711`. */
  where: string;
  /** This Neovim's terminal buffer that shows it: a terminal's own, the one a job is attached in; null for none. */
  buf: number | null;
  /** A job's short id; '' for the other kinds. */
  short: string;
  /** The remote host a job runs on (|madohub-hosts|); '' for this machine's. */
  host: string;
  /** The process of a session elsewhere, the process of another Neovim (`editor`); null for the others. */
  pid: number | null;
  /** The buffer of another Neovim's terminal (`editor` entries); null for the others. */
  peerBuf: number | null;
  /** The terminal a session elsewhere runs on (`/dev/pts/3`), when it can be read; '' for the others. */
  tty: string;
  /** A terminal's exit status once it has exited; null otherwise. */
  exit: number | null;
  /** A Failed state that is the user's interrupt, not an error; an Exited job that the user stopped or killed. */
  interrupted: boolean;
  /**
   * A terminal that shows a job (`mado attach`): that job's id. Such a terminal is no agent of its own
   * (the job's row is the one truth): it is in Lua's cache for its winbar, in no list. '' for the others.
   */
  shows: string;
  pinned: boolean;
  /** The user's order within a group (a job's `sortOrder`): lower first, 0 when never moved. */
  order: number;
  /** Why a reply waits to be sent (`queued`, `held-draft`: its words are PENDING_WORDS'); '' when none. */
  pending: Pending;
  /**
   * The turns it ended, as its owner counts them (a job's host, in its file): a count that grew is a
   * turn's end though no reading saw its Working. 0 where nothing counts them (terminals, sessions).
   */
  turns: number;
  /** The files its last finished turn changed, from the review's records (|madohub-review|); null: not known. */
  changed: number | null;
  /** What it spent (tokens, cost, context), from its agent's records (|madohub-usage|); null: not known. */
  usage: Usage | null;
  /**
   * Its program is gone: a terminal whose agent exited, a job whose agent exited or failed (its host
   * is gone). It takes no write, no view and no stop; a job only a respawn or `rm`.
   */
  ended: boolean;
  /** Another Neovim's server address (`editor` entries; '' for the others). */
  server: string;
  /** The command that attaches a terminal to a background session (its agent's attachCommand); empty for the others. */
  attach: string[];
}

/** A terminal of this Neovim: its buffer; how it ended; the job it shows when it is `mado attach`'s. */
export interface TerminalEntry extends EntryFields {
  kind: 'terminal';
  buf: number;
  short: '';
  host: '';
  pid: null;
  peerBuf: null;
  tty: '';
  server: '';
}

/** A background job (this machine's, or a remote host's): its id and host; the buffer it is attached in. */
export interface JobEntry extends EntryFields {
  kind: 'job';
  pid: null;
  peerBuf: null;
  tty: '';
  exit: null;
  shows: '';
  server: '';
}

/** A session of an agent running elsewhere on this machine: its process and terminal. */
export interface SessionEntry extends EntryFields {
  kind: 'session';
  buf: null;
  short: '';
  host: '';
  pid: number;
  peerBuf: null;
  exit: null;
  shows: '';
  server: '';
}

/** A terminal of another Neovim that runs MadoHub: that Neovim's process, server and buffer. */
export interface EditorEntry extends EntryFields {
  kind: 'editor';
  buf: null;
  short: '';
  host: '';
  pid: number;
  peerBuf: number;
  tty: '';
  shows: '';
}

/**
 * One entry of the fleet, by where it runs: a terminal of this Neovim, a background job, a session of
 * an agent running elsewhere on this machine (a Claude Code session in another terminal), or a
 * terminal of another Neovim that runs MadoHub.
 */
export type FleetEntry = TerminalEntry | JobEntry | SessionEntry | EditorEntry;

export type FleetKind = FleetEntry['kind'];

/** The fields of where an entry runs and how it ended, for a kind that has none of them; each builder sets its own. */
export const UNPLACED = {
  buf: null,
  short: '',
  host: '',
  pid: null,
  peerBuf: null,
  tty: '',
  exit: null,
  interrupted: false,
  shows: '',
  turns: 0,
  changed: null,
  usage: null,
  ended: false,
} as const;

/**
 * A tally of what an agent spent as its entry carries it (priced by `price` when given, else at the
 * prices its writer gave it: a job's host); null for none.
 */
export const usageOf = (tally: UsageTally | null | undefined, price?: PriceLookup): Usage | null =>
  tally ? usageView(tally, price) : null;

/** Its state is its agent's own word (its hooks, its event stream), not its screen's. */
export const confirmedJob = (job: { stateSource?: ListedJob['stateSource'] }): boolean => isConfirmed(job.stateSource);

/**
 * A job's status and tempo in the agents' words: running/blocked is Waiting, a turn ended is Stopped
 * (`done` while its host lives), an agent that exited 0 is Exited (`done` once its host is gone), …
 */
export function agentStateOfJob(
  job: Pick<ListedJob, 'status' | 'tempo'> & { alive?: boolean; stateSource?: ListedJob['stateSource'] },
): AgentState {
  switch (job.status) {
    case 'running':
      return job.tempo === 'blocked' ? 'waiting' : job.tempo === 'active' ? 'working' : 'idle';
    case 'done':
      // A turn its agent's own event ended is Completed, as a terminal's its records end.
      return job.alive === false ? 'exited' : confirmedJob(job) ? 'completed' : 'stopped';
    case 'errored':
      return 'failed';
    default:
      return 'exited';
  }
}

/**
 * `where` is `job`, or the buffer of this Neovim that shows it (`mado attach`); a job of a remote
 * host is `job on <host>`, its id `job:<host>:<short>`.
 */
export function jobEntry(
  job: ListedJob,
  attachedIn?: number,
  host = '',
  spent: (tally: UsageTally | null) => Usage | null = usageOf,
): JobEntry {
  const question = job.block?.questions[0];
  const state = agentStateOfJob(job);
  return {
    id: jobId(job.short, host),
    kind: 'job',
    name: job.name,
    named: job.nameSource === 'user',
    intent: job.intent,
    agent: job.agent,
    state,
    source: job.stateSource && confirmedJob(job) ? job.stateSource : 'job-file',
    confirmed: confirmedJob(job),
    since: job.updatedAt,
    cwd: job.cwd,
    detail: job.needs && !question ? `needs ${job.needs}` : job.detail,
    needs: question ? { question: question.text, options: question.options } : null,
    where: `job${host ? ` on ${host}` : ''}${attachedIn === undefined ? '' : ` in buffer ${attachedIn}`}`,
    pinned: job.pinned,
    order: job.sortOrder,
    pending: asPending(job.pendingReply),
    server: '',
    attach: [],
    ...UNPLACED,
    buf: attachedIn ?? null,
    short: job.short,
    host,
    // Your own: an interrupt, or a stop or kill asked for (x, `mado stop`): its exit is no news.
    interrupted:
      (state === 'failed' && job.detail === INTERRUPTED) || job.status === 'stopped' || job.status === 'killed',
    turns: job.turnsEnded ?? 0,
    changed: job.turnChanged ?? null,
    usage: spent(job.usage),
    ended: state === 'exited' || state === 'failed',
  };
}

/** A terminal's entry: its state, the folder its agent works in, and what it asks while it waits. */
export function terminalEntry(
  t: TerminalState,
  cwd = '',
  needs: FleetEntry['needs'] = null,
  intent = '',
): TerminalEntry {
  return {
    id: termId(t.buf),
    kind: 'terminal',
    name: `${t.agent} ${cwd ? (cwd.split('/').pop() ?? cwd) : `#${t.buf}`}`,
    named: false,
    intent: intent.slice(0, 200),
    agent: t.agent,
    state: t.state,
    source: t.source,
    confirmed: t.confirmed,
    since: t.since,
    cwd,
    detail: t.detail,
    needs: t.state === 'waiting' ? needs : null,
    where: `buffer ${t.buf}`,
    pinned: false,
    order: 0,
    pending: '',
    server: '',
    attach: [],
    ...UNPLACED,
    buf: t.buf,
    exit: t.exit,
    interrupted: t.interrupted,
    // A Failed terminal is a turn that failed: its agent still runs.
    ended: t.state === 'exited',
  };
}
