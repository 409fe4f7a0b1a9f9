// The job verbs of `mado` that are no operation of their own (src/ops/): --bg, agents, logs, attach,
// send, respawn, route.
import path from 'node:path';
import { jobsDir } from '../jobs/store.js';
import { dispatchJob, resolveId, respawnJob, sendToJob } from '../jobs/client/jobs.js';
import type { Io } from '../jobs/client/daemon.js';
import { JobError, UsageError } from '../shared/errors.js';
import { agents } from './agents.js';
import { parseArgs, safeText } from '../shared/args.js';
import { attach } from './attach.js';
import { BG_STDIN_FIRST_BYTE_MS, hintBlock, parseBgArgs, withStdin } from './bg.js';
import { printLogs } from './logs.js';
import { routeVerb } from './routes.js';
import { agentViewDisabled } from './switch.js';
import { HOST_NAME } from '../jobs/remote/hosts.js';
import { JOB_VERBS } from './verbs.js';

export type { Io };

async function bg(io: Io, argv: string[]): Promise<void> {
  const parsed = parseBgArgs(argv);
  // A task given on the line takes what is piped too, when something comes soon (the --bg contract).
  const args = withStdin(parsed, await io.stdin(parsed.prompt ? BG_STDIN_FIRST_BYTE_MS : undefined));
  for (const w of args.warnings) io.err(`mado: ${w}\n`);
  const { short, warning } = await dispatchJob(io, { ...args, origin: 'shell', cwd: process.cwd() });
  if (warning) io.err(`mado: ${warning}\n`);
  const via = io.env.MADOHUB_VIA_HOST;
  io.out(hintBlock(short, via && HOST_NAME.test(via) ? via : undefined));
}

async function logs(io: Io, argv: string[]): Promise<void> {
  const args = parseArgs(
    argv,
    [{ names: ['-n', '--lines'], value: true }, { names: ['-f', '--follow'] }, { names: ['--raw'] }],
    ['ID'],
  );
  const n = args.flags.get('-n');
  if (n !== undefined && !/^\d{1,9}$/.test(n)) throw new UsageError(`-n needs a number of lines, not '${safeText(n)}'`);
  const short = resolveId(io, args.positional[0]!);
  await printLogs(
    path.join(jobsDir(io.env), short),
    { lines: n === undefined ? undefined : Number(n), follow: args.flags.has('-f'), raw: args.flags.has('--raw') },
    io.out,
  );
}

async function respawn(io: Io, argv: string[]): Promise<void> {
  const short = resolveId(io, parseArgs(argv, [], ['ID']).positional[0]!);
  await respawnJob(io, short);
  io.out(`respawned ${short}\n`);
}

async function send(io: Io, argv: string[]): Promise<void> {
  const args = parseArgs(argv, [], ['ID', 'TEXT...']);
  const short = resolveId(io, args.positional[0]!);
  // The words after the id, else standard input (a NUL cannot be sent: it is dropped, with a notice).
  const words = args.positional.slice(1);
  let text = words.length > 0 ? words.join(' ') : ((await io.stdin()) ?? '');
  if (text.includes('\0')) {
    text = text.replaceAll('\0', '');
    io.err('mado: NUL bytes were dropped from the reply\n');
  }
  // Text is no answer to a menu: it waits until the menu is answered (mado answer), as a route's does.
  const pending = await sendToJob(io, short, text.replace(/\n+$/, ''), { waitMenus: true });
  io.out(
    pending === ''
      ? `sent to ${short}\n`
      : pending === 'queued'
        ? `queued for ${short}: sent when its turn ends\n`
        : pending === 'held: menu'
          ? `held for ${short}: it shows a menu; answer it with mado answer ${short} N, then this is sent\n`
          : `${pending} for ${short}: sent once its input line is empty\n`,
  );
}

export { JOB_VERBS };

/** Runs a job verb. */
export async function runJobVerb(io: Io, verb: string, argv: string[]): Promise<void> {
  if (agentViewDisabled(io.env)) {
    throw new JobError('the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)');
  }
  switch (verb) {
    case '--bg':
    case '--background':
      return bg(io, argv);
    case 'jobs':
    case 'agents':
      return agents(io.env, io.out, argv);
    case 'logs':
      return logs(io, argv);
    case 'attach': {
      const short = resolveId(io, parseArgs(argv, [], ['ID']).positional[0]!);
      return attach(io, short, path.join(jobsDir(io.env), short));
    }
    case 'send':
      return send(io, argv);
    case 'respawn':
      return respawn(io, argv);
    case 'route':
      return routeVerb(io, argv);
    default:
      throw new UsageError(`unknown command '${safeText(verb)}'`);
  }
}
