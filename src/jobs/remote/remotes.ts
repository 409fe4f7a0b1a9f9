// The remote hosts a long-lived process follows (the Neovim side): one link per host, opened at start, its
// jobs followed live, kept while it lives; a link that goes down is said (offline, with why) and tried
// again after 1 s, then every 2 s (begun again once a link has stayed up 10 s, not at each hello: a bridge
// that drops at once is not redialled at the first wait for ever), so that a host back after an outage is
// linked within 2 s of answering again (`retry` tries at once); a host that has not answered in 2 s is said
// offline while it is still tried. Calls go through the host's link while it is up.
import type { ListedJob } from '../protocol/replies.js';
import type { HostConfig } from './hosts.js';
import { Link, LinkError } from './link.js';

export interface RemoteStatus {
  online: boolean;
  /** Why it is offline ('' while online, or before its first answer). */
  reason: string;
  /** Its mado's version, once it answered. */
  version: string;
}

/** A host not up within this long is said offline (with why) while the link is still tried. */
export const OFFLINE_AFTER_MS = 2000;
const RETRY_MIN_MS = 1000;
/** At most this long between two tries: a host that answers again is linked within it. */
export const RETRY_MAX_MS = 2000;
/** A link up this long was a good one: the waits between tries begin again from the first. */
const STABLE_MS = 10_000;

interface Followed {
  config: HostConfig;
  link?: Link;
  watch?: { close(): void };
  jobs: ListedJob[];
  status: RemoteStatus;
  retryMs: number;
  timer?: NodeJS.Timeout;
  slow?: NodeJS.Timeout;
  /** A try is under way (its link not up, not failed yet). */
  connecting: boolean;
  /** When its link last came up (0 while it is down). */
  upSince: number;
  stopped: boolean;
}

export class Remotes {
  private readonly hosts = new Map<string, Followed>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** Told when a host's jobs or status changed. */
    private readonly onChange: (host: string) => void,
    private readonly log: { debug(m: string): void },
    /** The waits between tries: the first, the most, and how long a link stays up to begin them again. */
    private readonly waits = { minMs: RETRY_MIN_MS, maxMs: RETRY_MAX_MS, stableMs: STABLE_MS },
  ) {}

  /** Follows these hosts from now on: a host no longer named is let go, a changed one opened again. */
  configure(hosts: ReadonlyMap<string, HostConfig>): void {
    for (const [name, f] of this.hosts) {
      const now = hosts.get(name);
      if (now && JSON.stringify(now) === JSON.stringify(f.config)) continue;
      this.drop(name);
    }
    for (const [name, config] of hosts) {
      if (this.hosts.has(name)) continue;
      const f: Followed = {
        config,
        jobs: [],
        status: { online: false, reason: '', version: '' },
        retryMs: this.waits.minMs,
        connecting: false,
        upSince: 0,
        stopped: false,
      };
      this.hosts.set(name, f);
      this.connect(name, f);
    }
  }

  names(): string[] {
    return [...this.hosts.keys()];
  }

  status(name: string): RemoteStatus | undefined {
    return this.hosts.get(name)?.status;
  }

  jobs(name: string): readonly ListedJob[] {
    return this.hosts.get(name)?.jobs ?? [];
  }

  /** The host's link while it is up; a LinkError that says why not. */
  link(name: string): Link {
    const f = this.hosts.get(name);
    if (!f) throw new LinkError(`no host '${name.slice(0, 40)}' (see :help madohub-hosts)`, 'closed');
    if (!f.link || f.link.down)
      throw new LinkError(
        `${name} is offline${f.status.reason ? `: ${f.status.reason}` : ' (still connecting)'}`,
        'closed',
      );
    return f.link;
  }

  /**
   * Tries again now each host (or the one named) whose link is down and not being tried: its wait
   * for the next try ends. Answers the names tried.
   */
  retry(name?: string): string[] {
    const tried: string[] = [];
    for (const [host, f] of this.hosts) {
      if ((name !== undefined && host !== name) || f.stopped || f.connecting || (f.link && !f.link.down)) continue;
      clearTimeout(f.timer);
      f.timer = undefined;
      f.retryMs = this.waits.minMs;
      this.connect(host, f);
      tried.push(host);
    }
    return tried;
  }

  stop(): void {
    for (const name of [...this.hosts.keys()]) this.drop(name);
  }

  private drop(name: string): void {
    const f = this.hosts.get(name);
    if (!f) return;
    f.stopped = true;
    clearTimeout(f.timer);
    clearTimeout(f.slow);
    f.watch?.close();
    f.link?.close();
    this.hosts.delete(name);
    this.onChange(name);
  }

  private set(name: string, f: Followed, status: RemoteStatus): void {
    if (JSON.stringify(status) === JSON.stringify(f.status)) return;
    f.status = status;
    this.onChange(name);
  }

  private connect(name: string, f: Followed): void {
    f.connecting = true;
    f.timer = undefined;
    clearTimeout(f.slow);
    f.slow = setTimeout(() => {
      if (!f.stopped && !f.status.online)
        this.set(name, f, {
          online: false,
          reason: `no answer in ${OFFLINE_AFTER_MS / 1000} s (still trying)`,
          version: '',
        });
    }, OFFLINE_AFTER_MS);
    f.slow.unref();
    Link.open(name, f.config, { env: this.env, detached: true }).then(
      (link) => {
        clearTimeout(f.slow);
        f.connecting = false;
        if (f.stopped) return link.close();
        f.link = link;
        // The waits begin again only once this link has stayed up a while (one that drops right after
        // its hello is tried ever less often, not once a second for ever).
        f.upSince = Date.now();
        link.onDown((err) => this.lost(name, f, err));
        f.watch = link.watch((jobs) => {
          f.jobs = jobs;
          this.onChange(name);
        });
        this.set(name, f, { online: true, reason: '', version: link.version });
      },
      (err: unknown) => {
        clearTimeout(f.slow);
        f.connecting = false;
        this.lost(name, f, err);
      },
    );
  }

  private lost(name: string, f: Followed, err: unknown): void {
    if (f.stopped) return;
    f.link = undefined;
    f.watch = undefined;
    if (f.upSince > 0 && Date.now() - f.upSince >= this.waits.stableMs) f.retryMs = this.waits.minMs;
    f.upSince = 0;
    const reason = err instanceof Error ? err.message : String(err);
    this.log.debug(`host ${name}: ${reason}; tried again in ${f.retryMs / 1000} s`);
    this.set(name, f, { online: false, reason, version: '' });
    f.timer = setTimeout(() => this.connect(name, f), f.retryMs);
    f.timer.unref();
    f.retryMs = Math.min(this.waits.maxMs, f.retryMs * 2);
  }
}
