// The daemon: started on demand by the first client that needs it, it creates jobs and starts one
// detached PTY host per job, lists jobs, stops, kills, respawns and removes them. Operations on one
// job run one after another. It leaves by itself a few seconds after no job runs and no client is
// connected. Hosts do not depend on it.
import { chmodSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { appendEntry } from '../jobs/joblog.js';
import { daemonSocket } from '../jobs/paths.js';
import { PROTO } from '../jobs/protocol/codec.js';
import { AtRest } from '../shared/at-rest.js';
import type { DaemonRequest } from '../jobs/protocol/daemon-requests.js';
import { parseDaemonRequest } from '../jobs/protocol/daemon-requests.js';
import type { Reply } from '../jobs/protocol/replies.js';
import { serve } from '../jobs/protocol/serve.js';
import { listedJobs } from '../jobs/listed.js';
import { JobsWatch, wholeLists } from '../fleet/jobs-watch.js';
import { JobFeeds } from '../fleet/job-feeds.js';
import { throttled } from '../shared/debounce.js';
import type { ListedJob } from '../jobs/protocol/replies.js';
import type { DaemonContext } from './context.js';
import { hostEnv, hostGone } from './context.js';
import { SpareHost } from './spare-host.js';
import { handleDispatch } from './handle-dispatch.js';
import { handleList } from './handle-list.js';
import { handleRemove } from './handle-remove.js';
import { handleRespawn } from './handle-respawn.js';
import { handleStop } from './handle-stop.js';
import { DaemonRoutes } from './routes.js';
import { LinkPool, POOL_IDLE_MS } from '../jobs/remote/pool.js';
import { parseHosts } from '../jobs/remote/hosts.js';
import { remoteVerb } from './remote-verb.js';
import { DaemonAttention } from './attention.js';
import { JobQueues } from './serial.js';
import { inTheWay, publish, socketLive } from '../jobs/protocol/socket.js';

export interface DaemonOptions {
  jobsDir: string;
  runtime: string;
  script: string;
  idleMs?: number;
}

/** How often the daemon looks whether it may leave, while no job runs. */
const CHECK_MS = 500;
/** The routes and the news read the jobs at most this often. */
const JOBS_READ_MS = 100;
/** How long a host that ended its feed is given to leave before its job is read. */
const HOST_LEAVE_MS = 5000;
/** How often the whole folder is read again while a live job is not watched on its host's socket. */
const RELIST_MS = 30_000;

export async function runDaemon(opts: DaemonOptions): Promise<void> {
  const socketPath = daemonSocket(opts.runtime);
  const logFile = path.join(opts.runtime, 'daemon.log');
  const say = (m: string): void => {
    appendEntry(logFile, m);
  };
  if (await socketLive(socketPath)) {
    say('another daemon answers on the socket; leaving');
    return;
  }
  const ctx: DaemonContext = { jobsDir: opts.jobsDir, runtime: opts.runtime, script: opts.script, say };
  // A host started ahead of the next dispatch (issue 31), once the daemon listens.
  const spare = new SpareHost(ctx.script, ctx.jobsDir, hostEnv(ctx));
  const queues = new JobQueues();
  // With Neovim closed, a job that needs the user is told on the desktop (|madohub-notify|).
  const attention = new DaemonAttention(opts.jobsDir, path.join(opts.runtime, 'editors'), say);
  // Links to remote hosts, opened on first use and closed after a minute unused (the daemon stays
  // meanwhile); a remote host's jobs, while the link to it is up (a route's, a verb's): their news too.
  const links = new LinkPool(process.env, POOL_IDLE_MS, (host, jobs) => attention.remoteJobs(host, jobs));
  const routes = new DaemonRoutes(opts.jobsDir, say, links);
  // Its garbage collected once a burst of requests is over (with --expose-gc: LASTING_NODE_FLAGS).
  const atRest = new AtRest();
  let connected = 0;
  // Leave a while after nothing runs and nobody is connected or asked anything.
  const idleMs = opts.idleMs ?? 3000;
  let idleSince = Date.now();

  const handle = async (m: DaemonRequest): Promise<Reply> => {
    switch (m.op) {
      case 'list':
        return handleList(ctx);
      case 'dispatch':
        return queues.run(m.short, () => handleDispatch(ctx, m));
      case 'stop':
      case 'kill':
        return queues.run(m.short, () => handleStop(ctx, m));
      case 'respawn':
        return queues.run(m.short, () => handleRespawn(ctx, m));
      case 'remove':
        return queues.run(m.short, () => handleRemove(ctx, m));
      case 'route-add':
        return routes.add(m, await listedJobs(opts.jobsDir));
      case 'route-list':
        return routes.list();
      case 'route-remove':
        return routes.remove(m);
      case 'remote-list': {
        const { hosts, problems } = parseHosts(m.hosts, 'hosts');
        for (const p of problems) say(p);
        return { type: 'hosts', hosts: await links.listAll(hosts) };
      }
      case 'remote-verb':
        return { type: 'error', error: 'a remote verb answers as it goes' };
    }
  };

  const server = serve<DaemonRequest>({
    role: 'daemon',
    parse: parseDaemonRequest,
    log: say,
    handle: async (m, peer) => {
      connected++;
      // A request is activity: a daemon asked for a job a moment ago is not idle (quick jobs one after
      // another kept no job alive nor a client connected when it looked, and it left between them).
      idleSince = Date.now();
      atRest.worked();
      peer.onClose(() => {
        connected--;
        idleSince = Date.now();
      });
      // A remote verb answers as it goes (its output, then its end); every other request once.
      if (m.op === 'remote-verb') return remoteVerb(m, peer, links);
      peer.end(await handle(m));
    },
  });
  // Listen on a name of this daemon's own, then publish it: clients never find a socket that is
  // bound but not yet listening (and so never take it for a stale one).
  const tmp = path.join(opts.runtime, `d${process.pid}.s`);
  const leave = (why: string, code: number): void => {
    say(why);
    server.close();
    process.exitCode = code;
  };
  try {
    rmSync(tmp, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(tmp, resolve);
    });
    chmodSync(tmp, 0o600);
    const taken = await publish(tmp, socketPath);
    unlinkSync(tmp);
    if (taken === 'live') return leave('another daemon answers on the socket; leaving', 0);
    if (taken === 'blocked')
      return leave(`cannot listen on ${socketPath}: ${inTheWay(socketPath)} is in the way (remove it)`, 1);
  } catch (err) {
    rmSync(tmp, { force: true });
    return leave(`cannot listen on ${socketPath}: ${err instanceof Error ? err.message : String(err)}`, 1);
  }
  say(`listening on ${socketPath} (protocol ${PROTO}, pid ${process.pid})`);
  ctx.spare = spare;
  spare.keep();

  // The jobs as their files and hosts tell them (issue 31: no look every half second): each change read
  // as it comes, a host that left or died read at once (its job is marked errored when it died).
  let anyAlive = false;
  let idleCheck: NodeJS.Timeout | undefined;
  const leaveIdle = (): void => {
    clearInterval(idleCheck);
    readJobs.cancel();
    void watch.stop();
    feeds.stop();
    attention.stop();
    spare.stop();
    links.close();
    atRest.stop();
    say('idle: exiting');
    server.close();
    rmSync(socketPath, { force: true });
    process.exit(0);
  };
  // Leave a while after nothing runs and nobody is connected or asks: looked at only while no job runs
  // (a client or a link may keep the daemon then); while one runs, its end is told.
  const leaveIfIdle = (): void => {
    if (anyAlive || connected > 0 || links.open) {
      idleSince = Date.now();
      return;
    }
    if (Date.now() - idleSince >= idleMs) leaveIdle();
  };
  // The routes and the news read the jobs at most every JOBS_READ_MS (a busy fleet's changes gather).
  let latest: ListedJob[] = [];
  const readJobs = throttled(() => {
    routes.jobs(latest);
    attention.jobs(latest);
  }, JOBS_READ_MS);
  const heard = wholeLists((jobs) => {
    latest = jobs;
    readJobs.soon();
    feeds.follow(jobs);
    anyAlive = jobs.some((j) => j.alive);
    if (anyAlive) {
      idleSince = Date.now();
      clearInterval(idleCheck);
      idleCheck = undefined;
    } else idleCheck ??= setInterval(leaveIfIdle, CHECK_MS);
  });
  const quiet = { debug: () => undefined };
  // Job folders made and removed are watched; a live job's changes are its host's word (a working job's
  // files change at each frame of its screen: no look at each), and a job whose host comes up is read.
  const watch = new JobsWatch(opts.jobsDir, heard, quiet, false);
  ctx.hostUp = () => watch.readAll();
  // A host that ended its feed is leaving (or died): its job is read once it has gone.
  const feeds = new JobFeeds(
    opts.jobsDir,
    (job) => {
      // A job's change told is work too (what it leaves is collected once the jobs are quiet).
      atRest.worked();
      heard.job(job);
    },
    quiet,
    (short) => void hostGone(ctx, short, HOST_LEAVE_MS).then(() => watch.jobChanged(short)),
  );
  watch.start();
  // What no host tells (a job beyond the feeds' bound, a host of an older mado): the folder read again
  // now and then, while such a job is listed (none: nothing is read while nothing changes).
  setInterval(() => feeds.unwatched(latest) && watch.readAll(), RELIST_MS).unref();
  idleCheck ??= setInterval(leaveIfIdle, CHECK_MS);
}
