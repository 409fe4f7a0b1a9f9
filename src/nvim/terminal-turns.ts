// The review's checkpoints of this Neovim's terminals (issue 29): each agent's folder at its turn's start
// and end, as its state changes tell them (a job's host takes its own; a terminal that shows a job
// takes none). They are taken in the background and never hold the editor.
import path from 'node:path';
import { FALLBACK_AGENT } from '../agents/index.js';
import type { FleetHub } from '../fleet/hub.js';
import { Checkpoints } from '../review/checkpoint.js';
import { userKey } from '../review/ledger.js';
import { DEFAULT_MAX_MB, boundCheckpoints, reviewHealth } from '../review/bound.js';
import type { ReviewHealth } from '../review/bound.js';
import { turnEdge } from '../review/edges.js';
import { reviewKey, termId } from '../shared/fleet-id.js';
import { reviewDir } from '../shared/xdg.js';
import type { StateChange } from '../state/tracker.js';

/** The checkpoints' bound is looked at most this often (a size count walks the review's folder). */
const BOUND_EVERY_MS = 60_000;

export class TerminalTurns {
  private readonly checkpoints: Checkpoints;
  private readonly root: string;
  private maxBytes = DEFAULT_MAX_MB * 1024 * 1024;
  private boundAt = 0;

  constructor(
    private readonly hub: Pick<FleetHub, 'all' | 'turnChanged'>,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.root = reviewDir(env);
    this.checkpoints = new Checkpoints(this.root, env);
  }

  /** `review.max_mb` of setup(): every agent's checkpoints (jobs' too) are kept under it. */
  settings(maxMb: number): void {
    this.maxBytes = maxMb * 1024 * 1024;
    this.boundAt = 0;
    this.bound();
  }

  /** What :checkhealth shows of the review. */
  health(): Promise<ReviewHealth> {
    return reviewHealth(this.root, this.maxBytes);
  }

  /** Keeps the checkpoints under their bound, at most once a minute, in the background. */
  private bound(): void {
    const now = Date.now();
    if (now - this.boundAt < BOUND_EVERY_MS) return;
    this.boundAt = now;
    void boundCheckpoints(this.root, this.maxBytes).catch(() => undefined);
  }

  /** Terminals' state changes: a turn's start or end takes a checkpoint of its folder. */
  changes(changes: readonly StateChange[]): void {
    for (const c of changes) {
      const edge = turnEdge(c.previous, c.state);
      // A shell's commands are no agent's turns: only agents are checkpointed.
      if (!edge || c.agent === FALLBACK_AGENT) continue;
      const entry = this.hub.all().find((e) => e.id === termId(c.buf));
      const key = reviewKey({ kind: 'term', buf: c.buf });
      if (entry?.kind !== 'terminal' || !entry.cwd || !key) continue;
      const who = { key, agent: c.agent, name: entry.name, folder: entry.cwd };
      if (edge === 'began') {
        void this.checkpoints.began(who);
        continue;
      }
      // The files the turn changed go in its entry: its row says how many until the user has seen it.
      void this.checkpoints.ended(who).then((n) => {
        this.hub.turnChanged(c.buf, n);
        this.bound();
      });
    }
  }

  /**
   * The user saved `file` from this Neovim: a turn of an agent working in a folder that holds it, under
   * way now, names them (`you (Neovim) also worked here`).
   */
  saved(file: string): void {
    if (!path.isAbsolute(file)) return;
    const folders = new Set(
      this.hub
        .all()
        .filter((e) => (e.kind === 'terminal' || e.kind === 'job') && e.host === '' && e.cwd !== '')
        .map((e) => e.cwd),
    );
    for (const folder of folders)
      if (file.startsWith(`${folder}/`))
        void this.checkpoints.touched({ key: userKey(process.pid), agent: 'you', name: 'you (Neovim)', folder });
  }

  /** When the checkpoints asked so far of terminal `buf` are taken. */
  settled(buf: number): Promise<void> {
    return this.checkpoints.settled(reviewKey({ kind: 'term', buf }) ?? '');
  }
}
