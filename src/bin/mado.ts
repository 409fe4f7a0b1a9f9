import { readFileSync } from 'node:fs';
import path from 'node:path';
import { AGENT_MODULES, DEFAULT_AGENT } from '../agents/index.js';
import { runDaemon } from '../daemon/index.js';
import { SPARE_VERB } from '../jobs/host/spare.js';
import { createRequire } from 'node:module';
import { appendEntry } from '../jobs/joblog.js';
import { runtimeDir, runtimePath } from '../jobs/paths.js';
import { safeText } from '../shared/args.js';
import { jobsDir } from '../jobs/store.js';
import { runDetect } from '../cli/detect.js';
import { rulesDir } from '../agents/user-rules.js';
import { JobError, UsageError } from '../shared/errors.js';
import { JOB_VERBS, runJobVerb } from '../cli/jobs.js';
import { bridgeCheck, runBridge } from '../cli/bridge.js';
import { HOST_VERBS, hostCheck, hostList, runOnHost } from '../cli/remote.js';
import { opOfVerb, opsHelp } from '../ops/index.js';
import { wrapWords } from '../shared/text.js';
import { agentViewDisabled } from '../cli/switch.js';
import type { Io } from '../cli/jobs.js';

declare const MADOHUB_VERSION: string;

/** The verbs of a job's host and of the daemon's spare: run by their own entry (src/bin/mado-host.ts). */
const JOB_HOST_VERBS = ['__host', SPARE_VERB];

/** Runs the bundle `file` (the host's entry), which reads the same command line. */
function hostEntry(file: string): void {
  createRequire(__filename)(file);
}

/** Every agent's id, the default one marked: `amp, claude (default), codex, …`. */
function agentList(): string {
  return AGENT_MODULES.map((a) => (a.id === DEFAULT_AGENT ? `${a.id} (default)` : a.id)).join(', ');
}

const HELP = `mado — MadoHub's command line

Usage:
  mado attach ID            Open a job in this terminal; Ctrl-] detaches and leaves it running.
${opsHelp()}
  mado --host NAME [-C DIR] VERB …
${wrapWords(`Run a verb (${HOST_VERBS.join(', ')}) on the host NAME of hosts.json, through its command (ssh -T NAME, docker exec -i …) and \`mado bridge\` there; -C runs it in DIR there.`, 70).replace(/^/gm, ' '.repeat(28))}
  mado host check NAME      Say what the host has (Node, mado, node-pty, the daemon) and lacks.
  mado host ls              List the hosts of ~/.config/madohub/hosts.json.
  mado --version            Print mado's version.
  mado detect [FILE | -] [--title TITLE] [--agent NAME] [--explain [--json]]
      Print {agent, state, source, detail, rule} as one JSON line for a captured terminal screen
      (a file, or standard input), read by the same detectors the Neovim plugin uses; --agent
      reads it as that agent's screen (as when its process is known), whatever it shows.
      --explain says why: the agent and how it was told, the rule that decided and its line,
      the rules passed over (--json: as JSON).

${wrapWords(`IDs are a job's short id, a unique prefix of it, or its name. Agents (--agent): ${agentList()}, and those of $MADOHUB_TEMPLATES or ~/.config/madohub/templates.json.`)}
MADOHUB_DISABLE_AGENT_VIEW=1 (or agent_view = false in ~/.config/madohub/settings.json) turns
the job verbs off. Jobs live in $XDG_STATE_HOME/madohub/jobs (MADOHUB_JOBS_DIR overrides).
`;

/** The most of standard input read (a reply or a prompt is refused or cut far below it). */
const STDIN_MAX_BYTES = 1024 * 1024;
/** How long standard input may take to end (a pipe whose writer never closes it). */
const STDIN_WAIT_MS = 60_000;

/**
 * Standard input's text, from a pipe, a file or /dev/null alike (undefined from a terminal). Read
 * as a stream: a pipe whose writer is still at work is waited for (a synchronous read of it fails
 * at once with EAGAIN, and the text was lost), at most STDIN_MAX_BYTES and STDIN_WAIT_MS.
 */
function stdinText(firstByteMs?: number): Promise<string | undefined> {
  if (process.stdin.isTTY) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      finish();
      reject(new UsageError(`standard input did not end within ${STDIN_WAIT_MS / 1000} s`));
    }, STDIN_WAIT_MS);
    // A command that has text of its own takes standard input only when something comes on it soon:
    // a pipe its caller keeps open and never writes (a program's, a test's) is no input.
    const quiet =
      firstByteMs === undefined
        ? undefined
        : setTimeout(() => {
            finish();
            resolve(undefined);
          }, firstByteMs);
    const finish = (): void => {
      clearTimeout(timer);
      clearTimeout(quiet);
      process.stdin.removeAllListeners('data');
      process.stdin.removeAllListeners('end');
      process.stdin.pause();
      // Nothing more is read: the process may end with the pipe still open.
      process.stdin.unref?.();
    };
    process.stdin.on('data', (d: Buffer) => {
      clearTimeout(quiet);
      chunks.push(d);
      size += d.length;
      if (size >= STDIN_MAX_BYTES) {
        finish();
        resolve(Buffer.concat(chunks).subarray(0, STDIN_MAX_BYTES).toString('utf8'));
      }
    });
    process.stdin.once('end', () => {
      finish();
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    process.stdin.once('error', () => {
      finish();
      resolve(undefined);
    });
  });
}

async function main(argv: string[]): Promise<number> {
  const [verb, ...rest] = argv;
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    process.stdout.write(HELP);
    return verb === undefined ? 2 : 0;
  }
  if (verb === '--version' || verb === '-V') {
    process.stdout.write(`mado ${MADOHUB_VERSION}\n`);
    return 0;
  }
  try {
    if (verb === 'detect') {
      const warn = (line: string): void => void process.stderr.write(`${line}\n`);
      process.stdout.write(`${runDetect(rest, () => readFileSync(0, 'utf8'), { rulesDir: rulesDir(), warn })}\n`);
      return 0;
    }
    if (verb === '__daemon') {
      await runDaemon({ jobsDir: jobsDir(), runtime: runtimeDir(), script: process.argv[1]! });
      return 0;
    }
    if (verb === 'bridge') {
      if (rest[0] === '--check') {
        process.stdout.write(
          `${await bridgeCheck({ env: process.env, script: process.argv[1]!, version: MADOHUB_VERSION })}\n`,
        );
        return 0;
      }
      if (rest.length > 0)
        throw new UsageError("bridge takes no argument but --check (it is started by another machine's mado)");
      await runBridge({
        input: process.stdin,
        output: process.stdout,
        env: process.env,
        script: process.argv[1]!,
        version: MADOHUB_VERSION,
      });
      return 0;
    }
    const remote = verb === '--host' || verb === 'host';
    const op = opOfVerb(verb);
    if (JOB_VERBS.includes(verb) || op || remote) {
      const io: Io = {
        out: (t) => process.stdout.write(t),
        err: (t) => process.stderr.write(t),
        stdin: stdinText,
        env: process.env,
        script: process.argv[1]!,
        columns: process.stdout.columns,
        rows: process.stdout.rows,
      };
      if ((remote || op) && agentViewDisabled(io.env))
        throw new JobError(
          'the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)',
        );
      if (verb === '--host') return await runOnHost(io, rest);
      if (verb === 'host') {
        if (rest[0] === 'check' && rest.length === 2) return await hostCheck(io, rest[1]!);
        if (rest[0] === 'ls' && rest.length === 1) {
          hostList(io);
          return 0;
        }
        throw new UsageError('mado host check NAME | mado host ls');
      }
      if (op) {
        await op.print({ io }, op.fromArgv(rest));
        return 0;
      }
      await runJobVerb(io, verb, rest);
      return 0;
    }
    process.stderr.write(`mado: unknown command '${safeText(verb)}' (see mado --help)\n`);
    return 2;
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`mado ${verb}: ${err.message}\n`);
      return 2;
    }
    if (err instanceof JobError) {
      process.stderr.write(`mado ${verb}: ${err.message}\n`);
      return 1;
    }
    if (verb.startsWith('__')) throw err;
    // Not a failure mado foresaw: its message, and the stack only when asked (MADOHUB_DEBUG=1).
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`mado ${verb}: ${e?.message ?? String(err)}\n`);
    if (process.env.MADOHUB_DEBUG === '1' && e?.stack) process.stderr.write(`${e.stack}\n`);
    return 1;
  }
}

if (JOB_HOST_VERBS.includes(process.argv[2] ?? '')) {
  // `node dist/mado.js __host …` (a host's settings may name mado so): the host's own entry, beside this one.
  hostEntry(path.join(__dirname, 'mado-host.js'));
} else
  main(process.argv.slice(2)).then(
    (code) => {
      if (process.argv[2] !== '__daemon') process.exitCode = code;
    },
    (err: unknown) => {
      const text = `mado: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
      process.stderr.write(text);
      // The daemon has no standard error to read: its log gets the crash.
      try {
        if (process.argv[2] === '__daemon') appendEntry(path.join(runtimePath(), 'daemon.log'), text.trimEnd());
      } catch {
        // No log to write to: nothing more to do.
      }
      process.exitCode = 1;
    },
  );
