// Links opened on first use and kept while used: the daemon's, for the routes it keeps to a remote
// host's jobs. A link is opened when asked for, shared by the calls that come while it is up, and
// closed once no call has used it for `idleMs`; one that went down is opened again on the next call.
import type { HostListing, ListedJob } from '../protocol/replies.js';
import { readHosts } from './hosts.js';
import type { HostConfig } from './hosts.js';
import { Link, LinkError } from './link.js';

/**
 * How long a listing of every host waits for one: a host silent that long shows offline (its link goes on
 * coming up).
 */
export const LIST_WAIT_MS = 2000;

export const POOL_IDLE_MS = 60_000;

export class LinkPool {
  private readonly links = new Map<string, { link: Promise<Link>; timer?: NodeJS.Timeout; busy: number }>();
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly idleMs = POOL_IDLE_MS,
    /**
     * Told each host's jobs while a link to it is up (followed live), and `undefined` once it is down
     * or closed: the daemon's attention tells their news while no Neovim runs. None: not followed.
     */
    private readonly onJobs?: (host: string, jobs: readonly ListedJob[] | undefined) => void,
  ) {}

  /** Whether hosts.json names `host` now. */
  knows(host: string): boolean {
    return readHosts(this.env).hosts.has(host);
  }

  /**
   * Runs `fn` with the host's link (opened if none is up: with `config`, else hosts.json's); a
   * LinkError says why there is none. A host named again with another command gets a new link.
   */
  async use<T>(host: string, fn: (link: Link) => Promise<T>, given?: HostConfig): Promise<T> {
    const config = given ?? readHosts(this.env).hosts.get(host);
    if (!config) throw new LinkError(`no host '${host.slice(0, 40)}' in hosts.json`, 'closed');
    const key = `${host}\0${JSON.stringify(config)}`;
    let held = this.links.get(key);
    const up =
      held &&
      (await held.link.then(
        (l) => !l.down,
        () => false,
      ));
    if (!held || !up) {
      held = { link: Link.open(host, config, { env: this.env, detached: true }), busy: 0 };
      const mine = held;
      this.links.set(key, mine);
      mine.link.then(
        (link) => this.follow(host, link),
        () => this.links.get(key) === mine && this.links.delete(key),
      );
    }
    const h = held;
    clearTimeout(h.timer);
    h.busy++;
    try {
      return await fn(await h.link);
    } finally {
      h.busy--;
      if (h.busy === 0) {
        h.timer = setTimeout(() => this.drop(key, h), this.idleMs);
        h.timer.unref();
      }
    }
  }

  /** The host's jobs, followed while its link is up. */
  private follow(host: string, link: Link): void {
    if (!this.onJobs) return;
    const watch = link.watch((jobs) => this.onJobs?.(host, jobs));
    link.onDown(() => {
      watch.close();
      this.onJobs?.(host, undefined);
    });
  }

  private drop(key: string, h: { link: Promise<Link> }): void {
    if (this.links.get(key) !== h) return;
    this.links.delete(key);
    void h.link.then(
      (l) => l.close(),
      () => undefined,
    );
  }

  /** Whether a link is kept (the daemon stays while one is). */
  get open(): boolean {
    return this.links.size > 0;
  }

  /** Every host's jobs, each within `waitMs` (a host silent that long is offline, with why). */
  listAll(hosts: ReadonlyMap<string, HostConfig>, waitMs = LIST_WAIT_MS): Promise<HostListing[]> {
    return Promise.all(
      [...hosts].map(async ([host, config]): Promise<HostListing> => {
        // A host's own connect_ms, else the listing's wait.
        const ms = config.connectMs ?? waitMs;
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new LinkError(`${host} did not answer in ${ms / 1000} s`, 'timeout')), ms);
        });
        try {
          const listed = this.use(host, async (link) => ({ jobs: await link.list(ms), version: link.version }), config);
          // A late listing that ends after the wait is no unhandled failure.
          listed.catch(() => undefined);
          const { jobs, version } = await Promise.race([listed, late]);
          return { host, jobs, version };
        } catch (err) {
          return { host, offline: err instanceof Error ? err.message : String(err) };
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  }

  /** Closes every link (the daemon leaves). */
  close(): void {
    for (const [key, h] of [...this.links]) this.drop(key, h);
  }
}
