// Links opened on first use and kept while used: the daemon's, for the routes it keeps to a remote
// host's jobs. A link is opened when asked for, shared by the calls that come while it is up, and
// closed once no call has used it for `idleMs`; one that went down is opened again on the next call.
import { readHosts } from './hosts.js';
import { Link, LinkError } from './link.js';

export const POOL_IDLE_MS = 60_000;

export class LinkPool {
  private readonly links = new Map<string, { link: Promise<Link>; timer?: NodeJS.Timeout; busy: number }>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly idleMs = POOL_IDLE_MS,
  ) {}

  /** Whether hosts.json names `host` now. */
  knows(host: string): boolean {
    return readHosts(this.env).hosts.has(host);
  }

  /** Runs `fn` with the host's link (opened if none is up); a LinkError says why there is none. */
  async use<T>(host: string, fn: (link: Link) => Promise<T>): Promise<T> {
    let held = this.links.get(host);
    const up = held && (await held.link.then((l) => !l.down, () => false));
    if (!held || !up) {
      const config = readHosts(this.env).hosts.get(host);
      if (!config) throw new LinkError(`no host '${host.slice(0, 40)}' in hosts.json`, 'closed');
      held = { link: Link.open(host, config, { env: this.env, detached: true }), busy: 0 };
      this.links.set(host, held);
      held.link.catch(() => this.links.get(host) === held && this.links.delete(host));
    }
    const h = held;
    clearTimeout(h.timer);
    h.busy++;
    try {
      return await fn(await h.link);
    } finally {
      h.busy--;
      if (h.busy === 0) {
        h.timer = setTimeout(() => this.drop(host, h), this.idleMs);
        h.timer.unref();
      }
    }
  }

  private drop(host: string, h: { link: Promise<Link> }): void {
    if (this.links.get(host) !== h) return;
    this.links.delete(host);
    void h.link.then((l) => l.close(), () => undefined);
  }

  /** Closes every link (the daemon leaves). */
  close(): void {
    for (const [host, h] of [...this.links]) this.drop(host, h);
  }
}
