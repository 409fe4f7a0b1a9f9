// The session of a job's agent that cannot be given one (its module says how it is learnt: Codex's
// from the rollout its process writes), looked for at most every 2 s while its screen shows that
// agent, until found; then kept in the job file (`resumeSessionId`) for `mado respawn`.
import type { AgentModule } from '../../agents/types.js';
import type { JobProcess } from '../../agents/types.js';
import { paced } from '../../shared/debounce.js';

const LOOK_EVERY_MS = 2000;

export class SessionLearner {
  private learnt: string | undefined;
  private agent?: AgentModule;
  private readonly pace = paced(() => this.agent && this.look(this.agent), LOOK_EVERY_MS);

  constructor(
    /** The job's processes, its folder, when it started. */
    private readonly job: () => JobProcess,
    private readonly env: NodeJS.ProcessEnv,
    private readonly found: (id: string, file: string) => void,
  ) {}

  /**
   * Looks once more for the session of `agent` (its screen shows it), unless known; looked for just
   * now, it looks again once LOOK_EVERY_MS has passed (the session's file may come after the screen's
   * last change: Pi begins its file with the first prompt).
   */
  look(agent: AgentModule): void {
    if (!agent.learnJobSession || this.learnt) return;
    this.agent = agent;
    if (!this.pace.due()) return;
    const session = agent.learnJobSession(this.job(), this.env);
    if (!session) return;
    this.learnt = session.id;
    this.pace.cancel();
    this.found(session.id, session.file);
  }
}
