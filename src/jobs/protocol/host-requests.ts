// What a client asks a job's PTY host, and the guard that every request passes.
import type { MessageOf, Schemas } from '../../shared/checks.js';
import { bool, int, messageGuard, optional, str, strMax } from '../../shared/checks.js';
import { chainCheck } from '../chain-record.js';

/** The longest reply a job takes (a prompt's bound: a reply is one). */
export const MAX_REPLY_CHARS = 120 * 1024;

const cols = int(2, 1000);

/**
 * What a client asks a job's PTY host, each op and its fields' checks: the requests' types are made
 * by these checks (HostRequest), none is written beside them.
 */
const HOST_REQUESTS = {
  /** Starts a stream: the screen first, then the output as it comes. */
  attach: { cols: optional(cols), rows: optional(cols) },
  resize: { cols, rows: cols },
  input: { data: str },
  /**
   * A reply to the agent: pasted and entered when the agent is not working, else kept and sent when
   * its turn ends. `waitMenus`: a route's text waits while a menu shows (it is no answer to one);
   * `busyMs`: a route's text is dropped when it has waited this long; `chain`: the chain a route's
   * text goes on (the host keeps it for the routes that fire from this job) — none: the user's own
   * reply, which ends the chain.
   */
  send: {
    text: strMax(MAX_REPLY_CHARS),
    waitMenus: optional(bool),
    busyMs: optional(int(1, 24 * 3600 * 1000)),
    chain: optional(chainCheck),
  },
  /** Answers the menu on the agent's screen with a choice, if the screen shows one now. */
  choose: { choice: int(1, 9) },
  /**
   * Starts a stream of the job's file: as it is, then each change as the host writes it (issue 31: the
   * fleet has a job's change at once; the file stays the record).
   */
  watch: {},
  /** The text a person would read: the scrollback and the screen, as lines. */
  text: {},
  /**
   * Starts a stream of that text: as it is, then again each time the agent's output changed it (at
   * most every 250 ms: the host's FOLLOW_PUSH_MS), and once more when it has stood still that long
   * (`mado logs -f`).
   */
  follow: {},
  stop: {},
  kill: {},
  status: {},
} satisfies Schemas;

export type HostRequest = MessageOf<typeof HOST_REQUESTS>;

/** The request, or why it is not one (said back to the client as it is). */
export const parseHostRequest = messageGuard(HOST_REQUESTS);
