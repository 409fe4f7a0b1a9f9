// The daemon's attention: with no Neovim open, a background job that starts waiting, ends a turn,
// fails or exits is told on the desktop, through the notifier and the settings the last Neovim kept
// (`<jobs folder>/notify.json`). While a Neovim runs MadoHub it tells the jobs' news itself (one
// event is told once): the daemon then keeps quiet.
import { statSync } from 'node:fs';
import path from 'node:path';
import { agentModule } from '../agents/index.js';
import { chainOfTurn } from '../jobs/chain-record.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import { Attention } from '../fleet/attention.js';
import type { Notice } from '../fleet/attention.js';
import { channelsOf } from '../fleet/channels/index.js';
import type { NoticeChannel } from '../fleet/channels/index.js';
import { liveEditors } from '../fleet/editors.js';
import { jobEntry } from '../fleet/entry.js';
import type { FleetEntry } from '../fleet/entry.js';
import { ToldLedger } from '../fleet/told-ledger.js';
import { NOTIFY_FILE, readNotifyFile } from '../fleet/notify-settings.js';
import { jobOf } from '../shared/fleet-id.js';

/** How a job is reached from a shell: `mado attach ID`, `mado --host HOST attach ID` for a remote host's. */
export function howToReach(id: string): string {
  const job = jobOf(id);
  if (!job) return '';
  return job.host ? `mado --host ${job.host} attach ${job.short}` : `mado attach ${job.short}`;
}

export class DaemonAttention {
  private readonly engine: Attention;
  /** The ways a notice goes out from here (the desktop: the daemon runs in no terminal). */
  private readonly channels: NoticeChannel[];
  /** The settings file's stamp when last read ('' before; `none` when there is none). */
  private stamp = '';
  /** This machine's jobs as last listed, and each remote host's while the daemon's link to it is up. */
  private local: FleetEntry[] = [];
  private readonly remote = new Map<string, FleetEntry[]>();
  /** A remote host's jobs as last listed before its link went down (those gone when it is up again are forgotten). */
  private readonly unlinked = new Map<string, FleetEntry[]>();

  constructor(
    private readonly jobsDir: string,
    private readonly editorsDir: string,
    private readonly say: (m: string) => void,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.channels = channelsOf('daemon', { env, debug: say, warn: say });
    this.engine = new Attention(
      {
        agentName: (id) => agentModule(id).displayName,
        howTo: (item) => howToReach(item.id),
        routed: (e) =>
          e.short !== '' && e.host === '' && chainOfTurn(path.join(this.jobsDir, e.short), e.turns) !== undefined,
        toldWaits: new ToldLedger(jobsDir, say),
      },
      (n) => this.tell(n),
    );
  }

  /** The jobs as the daemon's check lists them (a job no longer listed, its folder removed, is forgotten). */
  jobs(jobs: readonly ListedJob[]): void {
    this.settings();
    const before = this.local;
    this.local = jobs.map((j) => jobEntry(j));
    this.forget(before, this.local);
    this.feed();
  }

  /**
   * A remote host's jobs, followed through the daemon's link to it (undefined: the link is down; its
   * jobs are remembered, for what they did meanwhile is news once it is up again).
   */
  remoteJobs(host: string, jobs: readonly ListedJob[] | undefined): void {
    if (jobs === undefined) {
      const last = this.remote.get(host);
      if (last) this.unlinked.set(host, last);
      this.remote.delete(host);
    } else {
      const before = this.remote.get(host) ?? this.unlinked.get(host) ?? [];
      const now = jobs.map((j) => jobEntry(j, undefined, host));
      this.unlinked.delete(host);
      this.remote.set(host, now);
      this.forget(before, now);
    }
    this.settings();
    this.feed();
  }

  /** How many jobs the engine keeps a memory of. */
  get remembered(): number {
    return this.engine.remembered;
  }

  /** The engine forgets the jobs of `before` that `now` no longer lists (its memory grew with each job ever run). */
  private forget(before: readonly FleetEntry[], now: readonly FleetEntry[]): void {
    const listed = new Set(now.map((e) => e.id));
    const gone = before.filter((e) => !listed.has(e.id)).map((e) => e.id);
    if (gone.length > 0) this.engine.removed(gone);
  }

  private feed(): void {
    this.engine.entries([...this.local, ...[...this.remote.values()].flat()]);
  }

  stop(): void {
    this.engine.stop();
    for (const c of this.channels) c.stop();
  }

  /** The settings a Neovim kept, read again when their file changed. */
  private settings(): void {
    const stamp = this.fileStamp();
    if (stamp === this.stamp) return;
    this.stamp = stamp;
    const { settings, mutes, problem } = readNotifyFile(this.jobsDir);
    if (problem) {
      // Said once: the file is kept aside (or, if it could not be, its stamp is taken as read); the
      // settings read before stay in use.
      this.say(`notifications: ${problem}`);
      this.stamp = this.fileStamp();
      return;
    }
    this.engine.configure(settings.attention);
    for (const [id] of this.engine.mutesOf()) this.engine.mute(id, null);
    for (const [id, m] of mutes) this.engine.mute(id, m);
    for (const c of this.channels) {
      c.configure(settings);
      // Why one the user asked for tells nothing (a notifier not found), said once.
      const health = c.health();
      if (settings.desktop.enabled && !health.ok) this.say(`notifications: ${health.word}`);
    }
  }

  /** The settings file's stamp (`none` when there is none: no Neovim kept any, the defaults). */
  private fileStamp(): string {
    try {
      const st = statSync(path.join(this.jobsDir, NOTIFY_FILE));
      return `${st.mtimeMs}:${st.size}`;
    } catch {
      return 'none';
    }
  }

  private tell(n: Notice): void {
    if (n.quiet) return;
    // A Neovim that runs MadoHub tells the jobs' news itself.
    if (liveEditors(this.editorsDir).length > 0) return;
    for (const c of this.channels) c.tell(n);
  }
}
