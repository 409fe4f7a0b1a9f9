// When a reply may go to an agent: the one rule for terminals and jobs (and the routes that use
// them). Pure.
import type { AgentId, AgentState } from '../shared/types.js';
import { draftOf } from './index.js';
import type { Pending } from '../shared/pending.js';

/**
 * `send`: now. `queue`: when the agent's turn ends (it works). `hold-menu`: it waits on a menu and
 * the text must be no answer to it (a route's, `mado send`'s): until the menu is answered.
 * `hold-draft`: the user has typed into the agent's input line; `hold-typing`: the user is in
 * Terminal mode in its window (both wait until that ends). `refuse`: the agent has exited.
 */
export type ReplyVerdict = 'send' | 'queue' | 'hold-menu' | 'hold-draft' | 'hold-typing' | 'refuse';

export interface ReplyContext {
  state: AgentState;
  /** What the user has typed into the agent's input line (draftOf), if anything. */
  draft?: string;
  /** The user is in Terminal mode in a window of the agent. */
  typing?: boolean;
  /** The agent waits on a menu (an approval) and the reply must not be taken for an answer to it (a route's). */
  menu?: boolean;
}

export function replyVerdict(ctx: ReplyContext): ReplyVerdict {
  if (ctx.state === 'exited') return 'refuse';
  if (ctx.typing) return 'hold-typing';
  if (ctx.draft !== undefined && ctx.draft !== '') return 'hold-draft';
  if (ctx.menu === true && ctx.state === 'waiting') return 'hold-menu';
  return ctx.state === 'working' ? 'queue' : 'send';
}

/**
 * The verdict for an agent as its screen shows it now: a draft in its input line holds the reply; a
 * wait holds a route's and `mado send`'s (`waitMenus`): what a Waiting agent shows is to be answered —
 * numbered choices or not (Claude Code's folder-trust dialog has none: `❯ No, exit`, where the Enter
 * after the text would pick the highlighted one); the user in Terminal mode in its window holds it
 * (`typing`).
 */
export function screenVerdict(
  state: AgentState,
  agent: AgentId,
  lines: readonly string[],
  terms: { typing?: boolean; waitMenus?: boolean },
): ReplyVerdict {
  return replyVerdict({
    state,
    typing: terms.typing,
    draft: draftOf(agent, lines),
    menu: terms.waitMenus === true && state === 'waiting',
  });
}

/** Why a reply with this verdict waits ('' when it goes now, or never). */
const VERDICT_PENDING: Record<ReplyVerdict, Pending> = {
  send: '',
  refuse: '',
  queue: 'queued',
  'hold-menu': 'held-menu',
  'hold-draft': 'held-draft',
  'hold-typing': 'held-typing',
};

export function pendingOf(verdict: ReplyVerdict): Pending {
  return VERDICT_PENDING[verdict];
}
