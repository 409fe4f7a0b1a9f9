// The hosts' word on their jobs (issue 31): each live job of this machine is watched on its host's
// socket, which tells each write of the job's file as it makes it: the fleet has a job's change at
// once, before its file is read. The file stays the record: it is read on each change too (another
// writer's change, a host that tells nothing: an older mado's, one that hung up), and the newer of
// the two is shown (a job's file's updatedAt only grows).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readHostInfo } from '../jobs/hostinfo.js';
import { Conn } from '../jobs/protocol/client.js';
import type { ListedJob } from '../jobs/protocol/replies.js';

/** The most hosts watched at once; the jobs beyond are read from their files alone. */
export const MAX_FEEDS = 256;

/** A job's feed: the host it watches (its pid), its connection while it is up. */
type Feed = { pid?: number; conn?: Conn; closed: boolean };

export class JobFeeds {
  private readonly feeds = new Map<string, Feed>();

  /** `ended`: a job's feed ended (its host left or died: its file says how). */
  constructor(
    private readonly dir: string,
    private readonly told: (job: ListedJob) => void,
    private readonly log: { debug(m: string): void },
    private readonly ended: (short: string) => void = () => undefined,
  ) {}

  /** The jobs as last listed: each live one watched (once per life of it in the listings), the others not. */
  follow(jobs: readonly ListedJob[]): void {
    const live = new Set(jobs.filter((j) => j.alive).map((j) => j.short));
    for (const [short, feed] of this.feeds) {
      if (live.has(short)) continue;
      feed.closed = true;
      // A job whose folder was removed under its live host is nobody's: it is ended (its host looks
      // for its folder itself only while nobody watches it: no timer in every idle host).
      if (feed.conn && !existsSync(path.join(this.dir, short))) feed.conn.send({ op: 'kill' });
      feed.conn?.close();
      this.feeds.delete(short);
    }
    for (const short of live) {
      const feed = this.feeds.get(short);
      // A feed that ended is opened again only to another host of the job (respawned).
      if (feed && (feed.conn || feed.pid === undefined || readHostInfo(path.join(this.dir, short))?.pid === feed.pid))
        continue;
      if (this.feeds.size < MAX_FEEDS || feed) void this.open(short);
    }
  }

  /** Whether a live job of `jobs` is not watched on its host's socket now (its changes are told by no one). */
  unwatched(jobs: readonly ListedJob[]): boolean {
    return jobs.some((j) => j.alive && this.feeds.get(j.short)?.conn === undefined);
  }

  /** How many jobs are watched on their hosts' sockets now. */
  get watched(): number {
    return [...this.feeds.values()].filter((f) => f.conn !== undefined && !f.closed).length;
  }

  private async open(short: string): Promise<void> {
    const feed: Feed = { closed: false };
    this.feeds.set(short, feed);
    const info = readHostInfo(path.join(this.dir, short));
    if (!info) return;
    feed.pid = info.pid;
    try {
      const { conn } = await Conn.open(info.socket);
      if (feed.closed) return conn.close();
      feed.conn = conn;
      conn.send({ op: 'watch' });
      for (;;) {
        const reply = await conn.next(0);
        if (reply.type === 'job' && reply.job.short === short) this.told({ ...reply.job, alive: true });
        else if (reply.type !== 'job') break;
      }
    } catch (err) {
      // The host left (its job ended) or hung up: its file tells the rest.
      if (!feed.closed)
        this.log.debug(`job ${short}: its host's word: ${err instanceof Error ? err.message : String(err)}`);
    }
    const was = feed.conn !== undefined;
    feed.conn?.close();
    feed.conn = undefined;
    if (was && !feed.closed) this.ended(short);
  }

  stop(): void {
    for (const feed of this.feeds.values()) {
      feed.closed = true;
      feed.conn?.close();
    }
    this.feeds.clear();
  }
}
