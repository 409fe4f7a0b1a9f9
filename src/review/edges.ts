// When a turn's checkpoint is taken: as its agent starts to work (Working or Waiting after neither) and as it
// stops (after either, anything else: Idle, Completed, Failed, Stopped, Exited). One rule for the
// terminals (the Neovim side) and the jobs (their hosts).
import type { AgentState } from '../shared/types.js';

const busy = (s: AgentState | null | undefined): boolean => s === 'working' || s === 'waiting';

/** The edge of a turn a change of state is, if any. */
export function turnEdge(from: AgentState | null | undefined, to: AgentState): 'began' | 'ended' | undefined {
  if (busy(to) && !busy(from)) return 'began';
  if (busy(from) && !busy(to)) return 'ended';
  return undefined;
}
