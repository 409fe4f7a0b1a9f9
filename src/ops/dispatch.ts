// `mado --bg …` (and the picker's input line, and a remote host's row of it): an agent started as a
// background job, under this machine's daemon, in a folder of its own choosing.
import path from 'node:path';
import { dispatchJob } from '../jobs/client/jobs.js';
import { SERVICE_MS } from '../jobs/client/service.js';
import { HOST_NAME } from '../jobs/remote/hosts.js';
import { MAX_PROMPT_BYTES, promptProblem } from '../jobs/templates.js';
import { BG_STDIN_FIRST_BYTE_MS, hintBlock, parseBgArgs, withStdin } from './bg-args.js';
import { bool, isObj, oneOf, optional, pattern, stringsMax, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { UsageError } from '../shared/errors.js';
import { safeText } from '../shared/text.js';
import { SESSION_REF } from '../shared/types.js';
import { defineOp } from './op.js';
import type { OpContext } from './op.js';
import type { Fields } from '../shared/checks.js';

const args = {
  agent: optional(strMax(200)),
  /** Its prompt ('' or none: the agent starts with none). */
  prompt: optional(strMax(MAX_PROMPT_BYTES)),
  name: optional(strMax(200)),
  /** The session it resumes, or `continue: true` for the folder's last one. */
  resume: optional(pattern(SESSION_REF, 'a session id')),
  continue: optional(bool),
  forkSession: optional(bool),
  /** In a git worktree of its own, on `branch` (else `mado/<id>`). */
  worktree: optional(bool),
  branch: optional(strMax(200)),
  /** Its folder, an absolute path; none: the folder the operation runs in. */
  cwd: optional(strMax(4096)),
  /** Where it was started from, as its job file says (`shell` unless told). */
  origin: optional(oneOf('shell', 'fleet', 'slash')),
  /** What reading its words warned of: said by `mado` before it starts, nothing else reads them. */
  warnings: optional(stringsMax(8)),
};

/** The job started (its id), and what its daemon warned of. */
interface Dispatched {
  short: string;
  warning?: string;
}

export const dispatch = defineOp({
  name: 'dispatch',
  verbs: ['--bg', '--background'],
  usage:
    '--bg [--agent NAME] [-n|--name NAME] [--resume ID | -c|--continue] [--fork-session] [-w|--worktree[=BRANCH]] [--] PROMPT…',
  summary:
    'Start an agent as a background job that outlives this terminal and Neovim (also --background). ' +
    '--worktree runs it in a git worktree of its own (branch mado/<id> unless named), as does an agent whose ' +
    'template says "isolation": "worktree"; mado rm removes the worktree (the branch stays). Piped standard ' +
    'input is appended to the prompt (cut at 16 KiB). With no prompt and no agent, the job starts idle and ' +
    'shows as blocked.',
  args,
  waitMs: SERVICE_MS.dispatch,
  startsAgent: true,
  // A task given on the line takes what is piped too, when something comes soon (the --bg contract).
  stdin: (argv) => ({ firstByteMs: taskGiven(argv) ? BG_STDIN_FIRST_BYTE_MS : undefined }),
  result: (v): string | null =>
    isObj(v) && shortIdCheck(v.short) === null && (v.warning === undefined || typeof v.warning === 'string')
      ? null
      : '{ short, warning? }',
  fromArgv: (argv) => {
    const parsed = parseBgArgs(argv);
    return {
      ...(parsed.agent === undefined ? {} : { agent: parsed.agent }),
      prompt: parsed.prompt,
      ...(parsed.name === undefined ? {} : { name: parsed.name }),
      ...(parsed.resume?.mode === 'id' ? { resume: parsed.resume.id } : {}),
      ...(parsed.resume?.mode === 'continue' ? { continue: true } : {}),
      forkSession: parsed.forkSession,
      ...(parsed.worktree
        ? { worktree: true, ...(parsed.worktree.branch ? { branch: parsed.worktree.branch } : {}) }
        : {}),
      ...(parsed.warnings.length > 0 ? { warnings: parsed.warnings } : {}),
    };
  },
  run: (ctx, a) => start(ctx, a),
  print: async (ctx, a) => {
    const { io } = ctx;
    const given = a.prompt ?? '';
    const piped = withStdin(
      { prompt: given, forkSession: false, warnings: [...(a.warnings ?? [])] },
      await io.stdin(given ? BG_STDIN_FIRST_BYTE_MS : undefined),
    );
    for (const w of piped.warnings) io.err(`mado: ${w}\n`);
    const started = await start(ctx, { ...a, prompt: piped.prompt });
    if (started.warning) io.err(`mado: ${started.warning}\n`);
    // A job started from another machine (`mado --host NAME --bg`) is named as that machine reaches it.
    const via = io.env.MADOHUB_VIA_HOST;
    io.out(hintBlock(started.short, via && HOST_NAME.test(via) ? via : undefined));
  },
  show: (started) => hintBlock(started.short),
});

/** Whether `--bg`'s words hold a task (words that are none say so when it runs, not here). */
function taskGiven(argv: readonly string[]): boolean {
  try {
    return parseBgArgs(argv).prompt !== '';
  } catch {
    return false;
  }
}

/** Starts the job its arguments describe, in their folder or the one it runs in. */
async function start({ io, cwd }: OpContext, a: Fields<typeof args>): Promise<Dispatched> {
  const prompt = a.prompt ?? '';
  const tooLarge = promptProblem(prompt);
  if (tooLarge) throw new UsageError(tooLarge);
  if (a.continue && a.resume) throw new UsageError('--resume and --continue exclude each other');
  if (a.forkSession && !a.resume && !a.continue) throw new UsageError('--fork-session needs --resume ID or --continue');
  if (a.branch !== undefined && !a.worktree) throw new UsageError('a branch is for a worktree (--worktree=BRANCH)');
  const folder = a.cwd ?? cwd ?? process.cwd();
  if (!path.isAbsolute(folder))
    throw new UsageError(`a job's folder is an absolute path, not '${safeText(folder).slice(0, 60)}'`);
  return dispatchJob(io, {
    agent: a.agent,
    name: a.name,
    prompt,
    resume: a.resume ? { mode: 'id', id: a.resume } : a.continue ? { mode: 'continue' } : undefined,
    forkSession: a.forkSession === true,
    worktree: a.worktree ? (a.branch ? { branch: a.branch } : {}) : undefined,
    origin: a.origin ?? 'shell',
    cwd: folder,
  });
}
