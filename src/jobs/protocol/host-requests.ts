// What a client asks a job's PTY host, and the guard that every request passes.
import type { Check } from '../checks.js';
import { firstProblem, int, isObj, optional, str } from '../checks.js';

/** Starts a stream: the screen first, then the output as it comes. */
export interface AttachRequest {
  op: 'attach';
  cols?: number;
  rows?: number;
}
export interface ResizeRequest {
  op: 'resize';
  cols: number;
  rows: number;
}
export interface InputRequest {
  op: 'input';
  data: string;
}
/** The text a person would read: the scrollback and the screen, as lines. */
export interface TextRequest {
  op: 'text';
}
export interface SignalRequest {
  op: 'stop' | 'kill';
}
export interface StatusRequest {
  op: 'status';
}

export type HostRequest = AttachRequest | ResizeRequest | InputRequest | TextRequest | SignalRequest | StatusRequest;

const cols = int(2, 1000);
const SCHEMAS: Record<HostRequest['op'], Record<string, Check>> = {
  attach: { cols: optional(cols), rows: optional(cols) },
  resize: { cols, rows: cols },
  input: { data: str },
  text: {},
  stop: {},
  kill: {},
  status: {},
};

export function parseHostRequest(value: unknown): HostRequest | string {
  if (!isObj(value)) return 'a request is a JSON object';
  const op = value.op;
  if (typeof op !== 'string' || !Object.hasOwn(SCHEMAS, op)) return `unknown op ${JSON.stringify(op)}`;
  const problem = firstProblem(value, SCHEMAS[op as HostRequest['op']]);
  return problem ? `${op}: ${problem}` : (value as unknown as HostRequest);
}
