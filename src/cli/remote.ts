// The verbs across machines: `mado --host NAME VERB …` runs a verb on a host of hosts.json through a
// link (src/jobs/remote/link.ts), `mado host check NAME` says what the other side has and lacks,
// `mado host ls` lists the hosts.
import { spawn } from 'node:child_process';
import { PROTO } from '../jobs/protocol/codec.js';
import { MAX_LINK_MESSAGE } from '../jobs/remote/wire.js';
import { daemonSocketUp } from '../jobs/client/daemon.js';
import { configuredHosts } from '../jobs/client/host-listings.js';
import { DEFAULT_CONNECT_MS, hostEntry, hostsFile, shownCommand } from '../jobs/remote/hosts.js';
import { Conn, ReachError } from '../jobs/protocol/client.js';
import type { HostConfig } from '../jobs/remote/hosts.js';
import { LinkError } from '../jobs/remote/link.js';
import type { MessagePeer } from '../jobs/remote/link.js';
import type { Io } from '../jobs/client/daemon.js';
import { JobError, UsageError } from '../shared/errors.js';
import { printable, safeText } from '../shared/text.js';
import { CHECK_END, checkScript, parseCheck } from './remote-check.js';
import { parseArgs } from '../shared/args.js';
import { attachPeer } from './attach.js';
import { hostNamed, openLink } from '../jobs/client/host-links.js';
import { JOB_VERBS } from './verbs.js';
import { opOfVerb, opVerbs } from '../ops/index.js';
import { namedEnv } from '../jobs/env.js';

/** How long a verb's own answer may take once the link is up (a dispatch starts a host there). */
const VERB_HELLO_MS = 10_000;

const hosts = configuredHosts;

/** What another machine's `mado` printed, made safe for this terminal: its lines, no control characters. */
export function remoteText(data: string): string {
  return data.replace(/\r\n/g, '\n').replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g, '?');
}

/**
 * The verbs `--host` takes: the job verbs and every operation, each run there as it runs here (`attach`
 * and `agents` are this side's, over the link), through the daemon's one link to the host: its output
 * is the user's to read (the Lua side's calls of an operation on a host get its result as data:
 * Link.run).
 */
export const HOST_VERBS = [...JOB_VERBS, ...opVerbs()];

/** `mado --host NAME [-C DIR] VERB …`: the verb's exit status. */
export async function runOnHost(io: Io, argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('--host needs a host name (see mado host ls)');
  let cwd: string | undefined;
  if (rest[0] === '-C' || rest[0] === '--cwd') {
    cwd = rest[1];
    if (cwd === undefined) throw new UsageError(`${rest[0]} needs a folder`);
    rest.splice(0, 2);
  }
  const [verb, ...args] = rest;
  if (verb === undefined) throw new UsageError(`--host ${name} needs a command (see mado --help)`);
  if (!HOST_VERBS.includes(verb))
    throw new UsageError(`'${printable(verb, 40)}' does not run on a host (these do: ${HOST_VERBS.join(', ')})`);
  const cfg = hostNamed(io, name);
  // Standard input goes across for the operations that read it, read here first (bounded as they bound it).
  const op = opOfVerb(verb);
  const use = op?.stdin(args);
  const stdin = use ? await io.stdin(use.firstByteMs) : undefined;
  if (verb !== 'attach')
    return verbThroughDaemon(io, name, cfg, [verb, ...args], { stdin, cwd, startsAgent: op?.startsAgent === true });
  // A view has a link of its own: it lasts as long as the view, its keys and output go straight.
  const link = await openLink(io, name, cfg);
  try {
    const id = parseArgs(args, [], ['ID']).positional[0]!;
    let peer: MessagePeer;
    try {
      peer = await link.host(id, VERB_HELLO_MS);
    } catch (err) {
      throw err instanceof LinkError ? new JobError(`${name}: ${err.message}`) : err;
    }
    await attachPeer(io, `${name}:${id}`, peer, (err) =>
      link.down
        ? `${link.down.message}; the job runs on on ${name}`
        : `the host of ${name}:${id} went away${err instanceof Error ? `: ${err.message}` : ''}`,
    );
    return 0;
  } finally {
    link.close();
  }
}

/**
 * Runs `mado VERB …` on host `name` through the daemon's link to it (one link per host, kept a
 * minute after use): its output as it comes, made safe for this terminal; its exit status.
 */
async function verbThroughDaemon(
  io: Io,
  name: string,
  cfg: HostConfig,
  argv: string[],
  opts: { stdin?: string; cwd?: string; startsAgent: boolean },
): Promise<number> {
  const [verb, ...args] = argv;
  const request = {
    op: 'remote-verb',
    host: name,
    config: hostEntry(cfg),
    argv,
    ...(opts.stdin === undefined ? {} : { stdin: opts.stdin }),
    ...(opts.cwd === undefined ? {} : { cwd: opts.cwd }),
    // A job started there gets what it names of this side ($MADOHUB_JOB_ENV), nothing else.
    ...(opts.startsAgent ? { env: namedEnv(io.env) } : {}),
  };
  // A raw log is the job's own bytes, as a terminal shows them (asked for by name).
  const raw = verb === 'logs' && args.includes('--raw');
  for (let attempt = 0; ; attempt++) {
    let conn: Conn;
    try {
      ({ conn } = await Conn.open(await daemonSocketUp(io), undefined, MAX_LINK_MESSAGE));
    } catch (err) {
      // A daemon that was leaving idle as we came: asked again, once.
      if (err instanceof ReachError && err.reason === 'absent' && attempt === 0) continue;
      throw err instanceof ReachError ? new JobError(`cannot reach the mado daemon: ${err.message}`) : err;
    }
    try {
      conn.send(request);
      for (;;) {
        const r = await conn.next(0);
        if (r.type === 'output') {
          if (r.fd === 2) io.err(remoteText(r.data));
          else io.out(raw ? r.data : remoteText(r.data));
        } else if (r.type === 'exit') return r.code;
        else if (r.type === 'error')
          throw new JobError(
            `${safeText(r.error)} (what ${verb} did on ${name} before is not known: mado --host ${name} agents tells)`,
          );
      }
    } catch (err) {
      throw err instanceof ReachError
        ? new JobError(`the mado daemon went away during ${verb} on ${name}: ${err.message}`)
        : err;
    } finally {
      conn.close();
    }
  }
}

/**
 * `mado host check NAME`: what the other side has (Node, mado, node-pty, the daemon) and what is missing; 0
 * when it is ready.
 */
export async function hostCheck(io: Io, name: string): Promise<number> {
  const cfg = hostNamed(io, name);
  const [program, ...args] = cfg.command;
  const checkMs = cfg.connectMs ?? DEFAULT_CONNECT_MS;
  const child = spawn(program!, args, { stdio: ['pipe', 'pipe', 'pipe'], env: io.env });
  let out = '';
  let err = '';
  const MAX = 64 * 1024;
  child.stderr.setEncoding('utf8').on('data', (d: string) => void (err = (err + d).slice(-4096)));
  child.stdin.on('error', () => {});
  child.stdin.end(`${checkScript(cfg.mado)}\n`);
  const ended = await new Promise<string | undefined>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve(`no answer in ${checkMs / 1000} s`);
    }, checkMs);
    const end = (why: string | undefined): void => {
      clearTimeout(timer);
      resolve(why);
    };
    // Done once the report is in: a process the host command left behind may hold its output open.
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      if (out.length < MAX) out += d;
      if (out.includes(CHECK_END)) end(undefined);
    });
    child.once('error', (e) => end(`cannot run ${safeText(program!)}: ${e.message}`));
    child.once('close', () => end(undefined));
  });
  // Nothing of the command is waited for past its report.
  child.stdout.destroy();
  child.stderr.destroy();
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  child.unref();
  io.out(`${name}: ${shownCommand(cfg.command)}\n`);
  const report = parseCheck(out);
  if (!report) {
    const last = safeText(err.trim().split('\n').slice(-2).join(' ')).slice(0, 300);
    io.out(
      `  shell      missing: ${ended ?? 'the command gave no shell that ran the check'}${last ? ` (${last})` : ''}\n`,
    );
    return 1;
  }
  const lines: [string, string, boolean][] = [];
  const nodeMajor = /^v(\d+)\.\d+\.\d+$/.exec(report.node ?? '')?.[1];
  const nodeOk = nodeMajor !== undefined && Number(nodeMajor) >= 20;
  lines.push([
    'Node',
    nodeMajor
      ? `${safeText(report.node!)}${nodeOk ? '' : ' (MadoHub needs 20 or later)'}`
      : `missing: install Node.js 20 or later${report.node ? ` (${safeText(report.node).slice(0, 120)})` : ''}`,
    nodeOk,
  ]);
  const b = report.bridge;
  if (!b) {
    const why = safeText(report.bridgeError ?? '').slice(0, 200);
    lines.push([
      'mado',
      `missing: \`${safeText(cfg.mado)}\` did not run${why ? ` (${why})` : ''}; install MadoHub there (see :help madohub-hosts) or set "mado" in hosts.json`,
      false,
    ]);
  } else {
    const protoOk = b.proto === PROTO;
    lines.push([
      'mado',
      `${safeText(b.version ?? '?')} (protocol ${b.proto ?? '?'})${protoOk ? '' : `: this mado speaks ${PROTO}; update ${(b.proto ?? 0) > PROTO ? 'MadoHub here' : `MadoHub on ${name}`}`}`,
      protoOk,
    ]);
    const ptyOk = b.pty === 'ok';
    lines.push(['node-pty', ptyOk ? 'loads' : `missing: ${safeText(b.pty ?? 'not said')}`, ptyOk]);
    lines.push(['daemon', safeText(b.daemon ?? 'not said'), true]);
    if (b.jobs !== undefined) lines.push(['jobs', String(b.jobs), true]);
  }
  for (const [what, said] of lines) io.out(`  ${what.padEnd(10)} ${said}\n`);
  // Its agents, one a line: id, agent, state (as `mado agents` words it), name.
  const agents = b?.agents ?? [];
  const width = (f: (a: (typeof agents)[number]) => string): number => Math.max(0, ...agents.map((a) => f(a).length));
  for (const a of agents)
    io.out(
      `    ${a.id}  ${a.agent.padEnd(width((x) => x.agent))}  ${a.state.padEnd(width((x) => x.state))}  ${a.name}`.trimEnd() +
        '\n',
    );
  if (b?.jobs !== undefined && b.jobs > agents.length)
    io.out(`    … and ${b.jobs - agents.length} more (mado --host ${name} agents)\n`);
  const ready = lines.every(([, , ok]) => ok);
  io.out(ready ? `${name} is ready\n` : `${name} is not ready: see above\n`);
  return ready ? 0 : 1;
}

/** `mado host ls`: the hosts of hosts.json and their commands. */
export function hostList(io: Io): void {
  const all = hosts(io);
  if (all.size === 0) {
    io.out(`no hosts (${hostsFile(io.env)} names none: see :help madohub-hosts)\n`);
    return;
  }
  for (const [name, cfg] of all) io.out(`${name}  ${shownCommand(cfg.command)}\n`);
}
