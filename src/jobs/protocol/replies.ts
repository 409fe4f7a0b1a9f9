// What the daemon and the hosts answer. Every connection starts with a `hello` from the server.
import type { Route } from '../../shared/route-types.js';
import type { JobFile } from '../types.js';

export interface Hello {
  type: 'hello';
  role: 'daemon' | 'host';
  pid: number;
}
export interface Ok {
  type: 'ok';
  short?: string;
  warning?: string;
  /** `stop`/`kill`: whether the agent had ended when the answer was sent. */
  ended?: boolean;
  /** `send`: the reply waits (for the agent's turn to end, or for a draft to go). */
  queued?: boolean;
  /** `send`: why it waits, for a person (`queued`, `held: draft`); '' when sent. */
  pending?: string;
  /** `choose`: the text of the choice made, as the screen showed it. */
  option?: string;
}
export interface ErrorReply {
  type: 'error';
  error: string;
}
/** A job as the daemon lists it: its file, whether its host lives, and why it cannot be read. */
export type ListedJob = JobFile & { alive: boolean; error?: string };
export interface Jobs {
  type: 'jobs';
  jobs: ListedJob[];
}
export interface ScreenReply {
  type: 'screen';
  lines: string[];
  title: string;
  cursor: { x: number; y: number };
}
export interface Output {
  type: 'output';
  data: string;
  /** A remote verb's standard error (2); its standard output otherwise. */
  fd?: 1 | 2;
}
export interface Exit {
  type: 'exit';
  code: number;
}
export interface Text {
  type: 'text';
  lines: string[];
  /** How many of `lines` have left the screen (the rest is the screen, which an agent redraws). */
  settled: number;
}
export interface Status {
  type: 'status';
  pid: number;
  ptyPid: number;
  clients: number;
  /** What waits in the host for its attached clients, in bytes (bounded: see serve.ts). */
  pendingBytes: number;
}

/** The daemon's routes (all of them, or the one just added). */
export interface Routes {
  type: 'routes';
  routes: Route[];
  /** What was wrong with routes.json when the daemon read it (a list answers it). */
  problems?: string[];
}

/**
 * One machine's part of a listing of every host: its jobs (and its mado's version), or why they could not
 * be listed.
 */
export type HostListing = { host: string; jobs: ListedJob[]; version?: string } | { host: string; offline: string };

/** Every remote host's jobs, as the daemon's links listed them. */
export interface HostsReply {
  type: 'hosts';
  hosts: HostListing[];
}

export type Reply = Hello | Ok | ErrorReply | Jobs | ScreenReply | Output | Exit | Text | Status | Routes | HostsReply;

const TYPES = new Set<Reply['type']>([
  'hello',
  'ok',
  'error',
  'jobs',
  'screen',
  'output',
  'exit',
  'text',
  'status',
  'routes',
  'hosts',
]);

/** The reply, or undefined when `value` is none (its fields are those its sender writes). */
export function asReply(value: unknown): Reply | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const type = (value as { type?: unknown }).type;
  return typeof type === 'string' && TYPES.has(type as Reply['type']) ? (value as Reply) : undefined;
}
