// How the sources of a terminal's state combine. Pure; the rules are written out in
// doc/madohub.txt (|madohub-precedence|) and each has a unit test.
import type { AgentState, StateSource } from '../detect/index.js';
import { inTurn } from '../shared/types.js';

/** A state from one source, with when MadoHub learnt it (epoch ms). */
export interface SourcedState {
  state: AgentState;
  source: StateSource;
  detail: string;
  at: number;
  /** When the record was written, by its own word (a record read again later keeps it). */
  written?: number;
}

export interface Sources {
  /** What the screen shows (`pty-scrape`); `at` is when its state last changed. */
  screen: SourcedState;
  /** The agent's live status (Claude Code's session file): idle, working or waiting. */
  live?: SourcedState;
  /** The latest record of the agent's transcript or rollout: working, completed or failed. */
  turn?: SourcedState;
}

const ended = (s: AgentState): boolean => s === 'completed' || s === 'failed';

/**
 * 1. Without a confirmed source, the screen decides.
 * 2. A turn that a record ended (Completed, Failed) stays ended until something newer shows a new
 *    turn: the session file going busy or waiting after it, a new record, or work or a question on
 *    the screen after it.
 * 3. Otherwise the session file decides when there is one (it is the live status; a transcript
 *    record of work in progress adds nothing to it), else the transcript; either outranks the
 *    screen for the same turn.
 * 4. The screen still wins with news the records lack: work or a question that showed after an
 *    Idle, a question that showed after Working (Codex writes no record for an approval), and a
 *    failure (an API error, an interrupt) that showed after a record of work (Qwen Code writes no
 *    record of either); not after the live status, which tells the turn's end itself. A question on
 *    the screen is never hidden by a transcript's record, whenever that record was read: the agent
 *    records its tool call before it asks (a busy machine reads the record last), and Gemini CLI
 *    records a response's text before it asks for the tool call the response makes. Only a live
 *    status that spoke after the question showed hides it.
 */
export function decide({ screen, live, turn }: Sources): SourcedState {
  let confirmed: SourcedState | undefined;
  if (turn && ended(turn.state)) {
    confirmed = live && inTurn(live.state) && live.at > turn.at ? live : turn;
  } else {
    confirmed = live ?? turn;
  }
  if (!confirmed) return screen;
  // A question on the screen: no transcript's record hides it (a record of work, read however late,
  // nor an end); only a live status that spoke after it showed (it tells its own waits).
  if (screen.state === 'waiting' && confirmed === turn && !(live && live.at > screen.at)) return screen;
  // An interrupt or an error on the screen ends the turn unless the record was written after it (a
  // newer turn, or step, began): a store written again as the turn is stopped is read later, not newer.
  if (
    screen.state === 'failed' &&
    confirmed === turn &&
    turn.state === 'working' &&
    screen.at > (turn.written ?? turn.at)
  )
    return screen;
  if (inTurn(screen.state) && screen.at > confirmed.at) {
    if (ended(confirmed.state) || confirmed.state === 'idle') return screen;
    if (screen.state === 'waiting' && confirmed.state === 'working') return screen;
  }
  return confirmed;
}
