// What a client asks a job's PTY host, and the guard that every request passes.
import type { Check } from '../checks.js';
import { int, optional, requestGuard, str } from '../checks.js';

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

/** The request, or why it is not one (said back to the client as it is). */
export const parseHostRequest = requestGuard<HostRequest>(SCHEMAS);
