// What a client asks a job's PTY host, and the guard that every request passes.
import type { Check } from '../../shared/checks.js';
import { bool, int, optional, requestGuard, str, strMax } from '../../shared/checks.js';
import { chainCheck } from '../chain-record.js';
import type { Chain } from '../chain-record.js';

/** The longest reply a job takes (a prompt's bound: a reply is one). */
export const MAX_REPLY_CHARS = 120 * 1024;

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
/**
 * A reply to the agent: pasted and entered when the agent is not working, else queued and sent when
 * its turn ends (one reply waits at most).
 */
export interface SendRequest {
  op: 'send';
  text: string;
  /** A route's text: it waits while a menu shows (it is no answer to one). */
  waitMenus?: boolean;
  /** A route's text is dropped when it has waited this long (ms). */
  busyMs?: number;
  /**
   * A route's text: the chain it goes on (the host keeps it for the routes that fire from this job). None:
   * the user's own reply, which ends the chain.
   */
  chain?: Chain;
}
/** Answers the menu on the agent's screen with a choice, if the screen shows one now. */
export interface ChooseRequest {
  op: 'choose';
  choice: number;
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

export type HostRequest =
  | AttachRequest
  | ResizeRequest
  | InputRequest
  | SendRequest
  | ChooseRequest
  | TextRequest
  | SignalRequest
  | StatusRequest;

const cols = int(2, 1000);
const SCHEMAS: Record<HostRequest['op'], Record<string, Check>> = {
  attach: { cols: optional(cols), rows: optional(cols) },
  resize: { cols, rows: cols },
  input: { data: str },
  send: {
    text: strMax(MAX_REPLY_CHARS),
    waitMenus: optional(bool),
    busyMs: optional(int(1, 24 * 3600 * 1000)),
    chain: optional(chainCheck),
  },
  choose: { choice: int(1, 9) },
  text: {},
  stop: {},
  kill: {},
  status: {},
};

/** The request, or why it is not one (said back to the client as it is). */
export const parseHostRequest = requestGuard<HostRequest>(SCHEMAS);
