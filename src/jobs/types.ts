// A background job's record: `<jobs dir>/<short>/state.json`. Typed here, validated on read.
import type { AgentId } from '../detect/types.js';

export type JobRunState = 'running' | 'stopped' | 'errored' | 'done';
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

/** Everything the specification's JobState holds. */
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
  env: Record<string, string>;
}

export const MAX_INTENT = 200;
export const MAX_DETAIL = 120;
export const SHORT_ID = /^[0-9a-f]{8}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
