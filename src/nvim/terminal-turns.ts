// The review's records of this Neovim's terminals (issue 29): each agent's folder at its turn's start
// and end, as its state changes tell them (a job's host records its own; a terminal that shows a job
// records nothing). Records run in the background and never hold the editor.
import type { FleetHub } from '../fleet/hub.js';
import { TurnRecorder } from '../review/record.js';
import { turnEdge } from '../review/edges.js';
import { reviewKey, termId } from '../shared/fleet-id.js';
import { reviewDir } from '../shared/xdg.js';
import type { StateChange } from '../state/tracker.js';

export class TerminalTurns {
  private readonly recorder: TurnRecorder;

  constructor(
    private readonly hub: FleetHub,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.recorder = new TurnRecorder(reviewDir(env), env);
  }

  /** Terminals' state changes: a turn's start or end records its folder. */
  changes(changes: readonly StateChange[]): void {
    for (const c of changes) {
      const edge = turnEdge(c.previous, c.state);
      if (!edge) continue;
      const entry = this.hub.all().find((e) => e.id === termId(c.buf));
      const key = reviewKey({ kind: 'term', buf: c.buf });
      if (entry?.kind !== 'terminal' || !entry.cwd || !key) continue;
      const who = { key, agent: c.agent, name: entry.name, folder: entry.cwd };
      void (edge === 'began' ? this.recorder.began(who) : this.recorder.ended(who));
    }
  }

  /** When the records asked so far of terminal `buf` are done. */
  settled(buf: number): Promise<void> {
    return this.recorder.settled(reviewKey({ kind: 'term', buf }) ?? '');
  }
}
