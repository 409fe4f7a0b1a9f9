// How a job reads while its agent comes up: when its typed task is typed, and what its file says
// before the agent first works. Pure: the time is given.
import type { Detection } from '../../detect/index.js';
import { jobPatch } from '../screen.js';
import type { JobFile } from '../types.js';
import type { Launch } from './launch.js';

/** How long a job started with a task reads as Working (`starting`) before its agent first works. */
export const STARTING_MS = 15_000;
/** A typed task is taken when the screen still reads idle this long after it was typed. */
export const TYPED_TAKEN_MS = 1000;

type Terms = Pick<Launch, 'typePrompt' | 'typeInto' | 'awaitingPrompt' | 'starting'>;

export class JobStartup {
  private typed: boolean;
  private awaitingPrompt: boolean;
  // Until its agent first works or asks, a job shows no finish (a resumed session's old completion
  // line is no turn of this job) and, started with a task, no Idle either (it is coming up).
  private seenWork = false;
  private typedAt: number | undefined;

  constructor(
    private readonly launch: Terms,
    private readonly startedAt: number,
  ) {
    this.typed = launch.typePrompt === undefined;
    this.awaitingPrompt = launch.awaitingPrompt === true;
  }

  /**
   * Whether the typed task is to be typed now (true once). It goes to its agent's screen once that
   * says it is idle; not to what precedes it (a blank screen reads as an idle shell, a banner as its
   * agent with nothing told), unless the agent never shows so within STARTING_MS.
   */
  typeDue(d: Pick<Detection, 'agent' | 'state' | 'kept'>, now: number): boolean {
    if (this.typed) return false;
    const shown =
      this.launch.typeInto === undefined ||
      (d.agent === this.launch.typeInto && !d.kept) ||
      now - this.startedAt > STARTING_MS;
    if (!shown || (d.state !== 'idle' && d.state !== 'stopped')) return false;
    this.typed = true;
    this.typedAt = now;
    return true;
  }

  /** What the job's file says of detection `d` over `lines`, at `now`. */
  patch(d: Detection, lines: readonly string[], now: number): Partial<JobFile> {
    if (d.state === 'working') this.awaitingPrompt = false;
    if (d.state === 'working' || d.state === 'waiting') this.seenWork = true;
    const read = jobPatch(d, lines);
    if (this.awaitingPrompt && d.state !== 'waiting') return { ...read, tempo: 'blocked', needs: 'a prompt' };
    if (this.seenWork || d.state === 'waiting' || d.state === 'exited') return read;
    // A typed task has been taken once the screen reads idle a while after it was typed (a shell's
    // command runs and is done without a Working to see).
    const typing = this.typedAt === undefined || now - this.typedAt < TYPED_TAKEN_MS;
    const starting =
      this.launch.starting === true &&
      now - this.startedAt < STARTING_MS &&
      (this.launch.typePrompt === undefined || typing);
    return {
      ...read,
      status: 'running',
      tempo: starting ? 'active' : 'idle',
      ...(starting ? { detail: 'starting' } : {}),
    };
  }
}
