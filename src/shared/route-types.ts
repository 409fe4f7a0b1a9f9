// A route: when one agent finishes a turn, what of it goes to which other agent (or buffer, or file).

/**
 * When a route fires: each finished turn (`done`: Stopped or Completed), also a failed one (`turn`), or
 * when the source starts waiting.
 */
export type RouteOn = 'done' | 'turn' | 'waiting';
export const ROUTE_ONS: readonly RouteOn[] = ['done', 'turn', 'waiting'];
/** What is sent: the source's final answer of the turn, its working tree's diff, or its last screen. */
export type RouteSend = 'last' | 'diff' | 'screen';
export const ROUTE_SENDS: readonly RouteSend[] = ['last', 'diff', 'screen'];

export interface Route {
  id: string;
  /** A fleet id: `term:<buf>` or `job:<id>`. */
  source: string;
  /** A fleet id (`term:<buf>`, `job:<id>`), a normal buffer (`buf:<n>`) or a file (`file:<absolute path>`). */
  target: string;
  /** The target's name for a person when it is no fleet entry (a buffer's name, a file's path). */
  targetName: string;
  on: RouteOn;
  send: RouteSend;
  /** A template's name (`review`, `continue`, or the user's); '' for the plain payload. */
  template: string;
  /** How many deliveries one chain may make. */
  hops: number;
  /** Fire once, then go. */
  once: boolean;
  /** The payload opens in a buffer to edit before it goes. */
  review: boolean;
  paused: boolean;
  createdAt: number;
}

/** A route as asked for: source and target, and the options given (the others take their defaults). */
export interface RouteRequest {
  source: string;
  target: string;
  /** The target's name for a person when it is no fleet entry. */
  targetName?: string;
  on?: string;
  send?: string;
  template?: string;
  hops?: number;
  once?: boolean;
  review?: boolean;
}

/**
 * The chain a payload belongs to: its id, how many deliveries it has made, and the entries it has
 * reached (a job's host keeps the one that reached it: src/jobs/chain-record.ts).
 */
export interface Chain {
  id: string;
  hop: number;
  visited: string[];
}

export const DEFAULT_HOPS = 3;
export const MAX_HOPS = 20;
