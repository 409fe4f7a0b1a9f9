// What the Node process sends the Lua side, as typed messages: the one place in Node that names Lua.
// Each message goes to one receiver, `require("madohub.wire").receive(msg)`, which hands it to the
// module it is for by its `type`; what needs an answer goes to `require("madohub.wire").answer(msg)`.
import type { FleetSpending } from '../fleet/spending.js';
import type { NeovimClient } from 'neovim';
import type { FleetEntry } from '../fleet/entry.js';
import type { KeptReply } from '../fleet/terminal-replies.js';
import type { Route } from '../shared/route-types.js';
import type { StateChange } from '../state/tracker.js';
import type { AgentState } from '../shared/types.js';
import type { LuaNotice } from './attention.js';

/** A route as Lua gets it: who keeps it, and its options as words (Lua formats no route of its own). */
export type ListedRoute = Route & { keeper: 'neovim' | 'daemon'; options: string };

/** One agent module, as Lua lists it. */
export interface AgentInfo {
  id: string;
  name: string;
  /** The agent a terminal runs when no agent does (the shell). */
  fallback: boolean;
}

/** The messages Lua takes without answering. */
export type ToLua =
  /**
   * One batch of changes: terminals' states, fleet entries put (new or changed) and removed, how many
   * other Neovims are not listed, the notices they made and the entries that came to need the user.
   */
  | {
      type: 'changes';
      states: StateChange[];
      put: FleetEntry[];
      removed: string[];
      editorsNotShown: number;
      notices: LuaNotice[];
      wanted: string[];
      /** What the fleet spent today, when it changed. */
      spending?: FleetSpending;
    }
  /** The entries muted (after a change). */
  | { type: 'mutes'; mutes: { id: string; states: 'all' | AgentState[] }[] }
  /** A desktop notification was clicked: go to that entry. */
  | { type: 'jump'; id: string }
  /** The answer to a call Lua made with `ask`: its result, or why it failed. */
  | { type: 'answer'; ask: number; result: unknown; error: string | null }
  /** The agent modules (once, when the process starts). */
  | { type: 'agents'; agents: AgentInfo[] }
  /** The screen rules changed (a user's rule file): send every terminal's screen again. */
  | { type: 'rescreen' }
  /** A message for the user (`warn`: something did not happen). */
  | { type: 'say'; message: string; warn: boolean }
  /**
   * The replies that wait for a terminal, first first, kept by Lua so that a new Node process gets them
   * back ([]: none waits).
   */
  | { type: 'kept'; buf: number; replies: KeptReply[] }
  /** Every route, after a change. */
  | { type: 'routes'; routes: ListedRoute[] }
  /** A route's payload to edit before it goes (`review`: the number its answer names). */
  | { type: 'review'; review: number; route: Route; text: string }
  /** A route fired or was held: a `User MadoRouteFired`/`MadoRouteHeld` event. */
  | { type: 'route_event'; kind: 'fired' | 'held'; data: object };

/** The messages Lua answers: each answers '' when done, else why not (`show`: whether it showed the terminal). */
export type LuaAsk =
  /** Writes into a terminal: pasted text, or keys. */
  | { type: 'write'; buf: number; data: string; how: 'paste' | 'keys' }
  /** Appends lines to a normal buffer (a route's target). */
  | { type: 'append'; buf: number; lines: string[] }
  /** Another Neovim's: show your terminal `buf`. */
  | { type: 'show'; buf: number };

const RECEIVE = 'require("madohub.wire").receive(...)';
const ANSWER = 'return require("madohub.wire").answer(...)';

/** Sends a message to a Neovim's Lua side (this process's, or another Neovim's for `show`). */
export class LuaWire {
  constructor(private readonly nvim: NeovimClient) {}

  send(msg: ToLua): void {
    this.nvim.notify('nvim_exec_lua', [RECEIVE, [msg]]);
  }

  /** Asks Lua and waits for its answer. */
  ask(msg: LuaAsk): Promise<unknown> {
    return this.nvim.request('nvim_exec_lua', [ANSWER, [msg]]) as Promise<unknown>;
  }
}
