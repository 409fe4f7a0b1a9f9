// The daemon's spare host (issue 31): one host process started ahead of the next dispatch, its code
// loaded, waiting (with no timer) for the job it is handed; a dispatch hands it its job instead of
// starting a host, and another spare is started once it is taken. It has the environment a fresh
// host gets, and takes the job's folder and its agent's environment only as it is handed them (each
// spare serves one job: nothing of another job's can be in it). It leaves when its input ends: when
// the daemon goes, whatever the way.
import type { Detached, Waiting } from '../jobs/detached.js';
import { startWaiting } from '../jobs/detached.js';
import { SPARE_PAD, SPARE_VERB, spareLine } from '../jobs/host/spare.js';
import type { SpareJob } from '../jobs/host/spare.js';

export class SpareHost {
  private waiting: Waiting | undefined;
  private stopped = false;

  /** `env`: a fresh host's environment (hostEnv). */
  constructor(
    private readonly script: string,
    private readonly jobsDir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Starts a spare when none waits. */
  keep(): void {
    if (this.stopped || (this.waiting && this.waiting.ended() === undefined)) return;
    // Waiting in / keeps no folder of the user's busy.
    this.waiting = startWaiting(this.script, [SPARE_VERB, this.jobsDir, SPARE_PAD], this.env, '/');
  }

  /** Hands `job` to the spare: the host that now runs it; undefined when none waits (start a fresh one). */
  hand(job: SpareJob): Detached | undefined {
    const spare = this.waiting;
    this.waiting = undefined;
    return spare?.hand(spareLine(job)) ? spare : undefined;
  }

  /** Lets the spare go (it leaves), and starts no other. */
  stop(): void {
    this.stopped = true;
    this.waiting?.release();
    this.waiting = undefined;
  }
}
