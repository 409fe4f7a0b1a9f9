// When a turn's checkpoint is taken: as its agent starts to work (Working or Waiting after neither) and as it
// stops (after either, anything else: Idle, Completed, Failed, Stopped, Exited). One rule for the
// terminals (the Neovim side) and the jobs (their hosts).
import { inTurn } from '../shared/types.js';
import type { AgentState } from '../shared/types.js';

/** The edge of a turn a change of state is, if any. */
export function turnEdge(from: AgentState | null | undefined, to: AgentState): 'began' | 'ended' | undefined {
  if (inTurn(to) && !inTurn(from)) return 'began';
  if (inTurn(from) && !inTurn(to)) return 'ended';
  return undefined;
}
