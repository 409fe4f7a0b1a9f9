// A background job's file: `<jobs dir>/<id>/job.json`. Typed here, validated on read.
import type { UsageTally } from '../usage/tally.js';
import type { AgentId } from '../detect/types.js';
import type { JobStateSource } from '../shared/types.js';

/**
 * A job's status: its agent runs (`running`), has ended a turn and waits for more (`done`), or has
 * ended for good: stopped by `mado stop`, killed by `mado kill`, or failed (`errored`). Not to be
 * mixed up with an agent's state (working, idle, waiting, …: see detect/types.ts).
 */
export type JobStatus = 'running' | 'done' | 'stopped' | 'killed' | 'errored';
export const JOB_STATUSES: readonly JobStatus[] = ['running', 'done', 'stopped', 'killed', 'errored'];
export type JobTempo = 'active' | 'idle' | 'blocked';
export const JOB_TEMPOS: readonly JobTempo[] = ['active', 'idle', 'blocked'];
/** Where a job was started from. */
export type JobOrigin = 'shell' | 'slash' | 'fleet' | 'spare' | 'respawn' | 'left_arrow';
export const JOB_ORIGINS: readonly JobOrigin[] = ['shell', 'slash', 'fleet', 'spare', 'respawn', 'left_arrow'];
export type NameSource = 'user' | 'auto';

export interface JobTemplate {
  name: string;
  description: string;
  initialPrompt: string;
}

export interface JobQuestion {
  text: string;
  options: string[];
}

/** A job's file: every field is always there (null or empty when unknown). */
export interface JobFile {
  proto: number;
  short: string;
  sessionId: string;
  createdAt: number;
  updatedAt: number;
  firstTerminalAt: number | null;
  template: JobTemplate;
  agent: AgentId;
  intent: string;
  name: string;
  nameSource: NameSource;
  detail: string;
  color: string;
  status: JobStatus;
  tempo: JobTempo;
  needs: string | null;
  block: { questions: JobQuestion[] } | null;
  suggestedReply: string | null;
  output: string | null;
  resumeSessionId: string | null;
  sortOrder: number;
  stateSortOrder: number;
  pinned: boolean;
  cwd: string;
  originCwd: string;
  worktreePath: string | null;
  worktreeBranch: string | null;
  worktreeHookBased: boolean;
  children: string[];
  origin: JobOrigin;
  respawnFlags: string[];
  /** A failure its host lived through (a write to a full disk), said once; null when none. */
  problem: string | null;
  /** A reply that waits in its host, in a person's words (`queued`, `held: draft`); null when none. */
  pendingReply: string | null;
  /**
   * How many turns its agent has ended in this job (its host counts each end it writes): a reader
   * that missed the Working between two of them still sees that a turn ended.
   */
  turnsEnded: number;
  /** The files its last finished turn changed in its folder, from the review's records; null: not known. */
  turnChanged: number | null;
  /** What its agent spent so far, counted from its records by its host (|madohub-usage|); null: not known. */
  usage: UsageTally | null;
  /**
   * Where its state was read: its screen, or its agent's own word (`hook`, `event-stream`, `notification`)
   * or records (`jsonl-watcher`, `session-file`, `session-db`): confirmed; null before.
   */
  stateSource: JobStateSource | null;
}

/**
 * The version of the job file's layout (its `proto` field). Apart from the wire protocol: a job file
 * outlives the mado that wrote it. Version 1 was `state.json`, with `state` for the status, `source`
 * for the origin and the job's environment in `env`: it is read, and the next write replaces it
 * with a `job.json` of version 2 (without the environment, which is never stored).
 */
export const JOB_FILE_VERSION = 2;

export const MAX_INTENT = 200;
export { SHORT_ID } from '../shared/fleet-id.js';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
