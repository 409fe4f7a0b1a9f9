// A background job's record: `<jobs dir>/<short>/state.json`. Typed here, validated on read.
import type { AgentId } from '../detect/types.js';

/**
 * Where a job is: its agent runs (`running`), has ended a turn and waits for more (`done`), or has
 * ended for good: stopped by `mado stop`, killed by `mado kill`, or failed (`errored`).
 */
export type JobRunState = 'running' | 'done' | 'stopped' | 'killed' | 'errored';
export const JOB_RUN_STATES: readonly JobRunState[] = ['running', 'done', 'stopped', 'killed', 'errored'];
export type JobTempo = 'active' | 'idle' | 'blocked';
export type JobSource = 'shell' | 'slash' | 'fleet' | 'spare' | 'respawn' | 'left_arrow';
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

/** A job's record: every field is always there (null or empty when unknown). */
export interface JobState {
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
  state: JobRunState;
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
  source: JobSource;
  respawnFlags: string[];
}

/**
 * The version of state.json's layout (its `proto` field). Apart from the wire protocol: a record
 * outlives the mado that wrote it. Version 1 records may still hold an `env` field, which is never
 * read and goes at the next write (a job's environment is never stored: see the daemon).
 */
export const RECORD_VERSION = 1;

export const MAX_INTENT = 200;
export const MAX_DETAIL = 120;
export const SHORT_ID = /^[0-9a-f]{8}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
