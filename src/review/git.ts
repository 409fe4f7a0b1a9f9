// Git as the review's shadow repositories run it: a repository of MadoHub's own (`gitDir`) with the
// agent's folder as its work tree, and none of the user's git setup that could act: no system or
// global config (their excludes file is passed on by name), no hooks, no filters, no fsmonitor, no
// prompt, no environment of a git the user runs (GIT_DIR and the rest are dropped). Bounded in time
// (an abort ends the process) and in what it prints. A git is ended with SIGTERM first, so that it
// removes its lock files (a git killed at once leaves `index.lock`, and every later `git add` on that
// index fails); and none outlives the process that started it (`endGitRuns`).
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { safeText } from '../shared/text.js';

/** Where a shadow git runs. */
export interface GitPlace {
  gitDir: string;
  /** The agent's folder, the work tree (none for what reads the repository alone). */
  workTree?: string;
  /** The index, one per agent (two agents in one folder take checkpoints side by side). */
  index?: string;
  /** The user's own excludes file (`core.excludesFile`), honoured by name. */
  excludesFile?: string;
}

export interface GitRun {
  /** Fed to its standard input, then closed. */
  input?: string | Buffer;
  /** Ends it (an abort: the checkpoint's time is up). */
  signal?: AbortSignal;
  /** The most it may print (it is ended past it, and the run fails). */
  maxBytes?: number;
  /** Called with each chunk it prints, for a reader that stops early (`false`: end it). */
  onChunk?(chunk: Buffer): boolean;
}

export interface GitResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
  /** Why it was ended early (the abort, the size), or undefined. */
  cut?: string;
}

/** What a shadow git prints at most unless told. */
const MAX_OUTPUT = 64 * 1024 * 1024;
const MAX_STDERR = 16 * 1024;

/** How long a git asked to end (SIGTERM) has before it is killed. */
export const GIT_END_GRACE_MS = 1000;

/** The shadow gits running now. */
const running = new Set<ChildProcess>();
/** The ending of each git asked to end. */
const endings = new WeakMap<ChildProcess, Promise<void>>();

/** Asks `child` to end (SIGTERM, then SIGKILL after the grace): settles when it has exited. */
function endChild(child: ChildProcess): Promise<void> {
  const asked = endings.get(child);
  if (asked) return asked;
  const exited = new Promise<void>((resolve) => {
    // One that never ran (`git` not found) has nothing to end.
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
    // Killed after the grace; and however it goes, not waited for past a second grace.
    const kill = setTimeout(() => {
      child.kill('SIGKILL');
      setTimeout(resolve, GIT_END_GRACE_MS);
    }, GIT_END_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
  endings.set(child, exited);
  return exited;
}

/** Set once the process leaves: no git starts after. */
let leaving = false;

/** Ends every shadow git this process runs (it is leaving; none starts after): settles when they exited. */
export async function endGitRuns(): Promise<void> {
  leaving = true;
  await Promise.all([...running].map(endChild));
}

/** The settings every shadow git runs with, whatever the user's config says. */
const SETTINGS = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.autocrlf=false',
  'core.symlinks=true',
  'core.quotePath=false',
  'core.bigFileThreshold=1m',
  'gc.auto=0',
  'advice.addEmbeddedRepo=false',
  'advice.addIgnoredFile=false',
  'diff.external=',
  'diff.noprefix=false',
  'diff.renames=true',
  'color.ui=false',
  'user.name=MadoHub',
  'user.email=madohub@localhost',
];

/** The environment of a shadow git: the process's without any GIT_ variable, and git's own pinned. */
export function gitEnv(place: GitPlace, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('GIT_') && v !== undefined) out[k] = v;
  return {
    ...out,
    LC_ALL: 'C',
    GIT_DIR: place.gitDir,
    ...(place.workTree ? { GIT_WORK_TREE: place.workTree } : {}),
    ...(place.index ? { GIT_INDEX_FILE: place.index } : {}),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_ATTR_NOSYSTEM: '1',
  };
}

/** Runs a shadow git: its output, its code, or why it was ended. Never rejects for git's own failure. */
export function git(place: GitPlace, args: readonly string[], run: GitRun = {}): Promise<GitResult> {
  const settings = [...SETTINGS, ...(place.excludesFile ? [`core.excludesFile=${place.excludesFile}`] : [])];
  return runGit([...settings.flatMap((s) => ['-c', s]), ...args], place.workTree ?? place.gitDir, gitEnv(place), run);
}

/** What the user's own git answers (their config, as they run it) is bounded to. */
const USER_GIT = { timeMs: 2000, maxBytes: 64 * 1024 };

/** Asks the user's own git (`env`: as they run it) a question, bounded like every git of MadoHub's. */
export function userGit(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<GitResult> {
  return runGit(args, undefined, env, { signal: AbortSignal.timeout(USER_GIT.timeMs), maxBytes: USER_GIT.maxBytes });
}

/** Runs git with `argv` in `cwd`: bounded by `run`, ended with this process (`endGitRuns`). */
function runGit(
  argv: readonly string[],
  cwd: string | undefined,
  env: NodeJS.ProcessEnv,
  run: GitRun,
): Promise<GitResult> {
  if (leaving) return Promise.resolve({ code: null, stdout: Buffer.alloc(0), stderr: '', cut: 'MadoHub is leaving' });
  return new Promise((resolve) => {
    const child = spawn('git', argv, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
    running.add(child);
    const out: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let cut: string | undefined;
    const end = (why: string): void => {
      cut ??= why;
      void endChild(child);
    };
    const onAbort = (): void => end('its time was up');
    if (run.signal?.aborted) onAbort();
    run.signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      if (cut) return;
      size += chunk.length;
      if (size > (run.maxBytes ?? MAX_OUTPUT)) return end('it printed too much');
      if (run.onChunk && !run.onChunk(chunk)) return end('its reader stopped it');
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8').slice(0, MAX_STDERR - stderr.length);
    });
    child.stdin.on('error', () => {
      // git ended before reading all it was given (an abort): its result says so.
    });
    child.stdin.end(run.input ?? '');
    child.on('error', (err) => {
      cut ??= `git could not run: ${err.message}`;
    });
    child.once('exit', () => {
      // A program git started may hold its output open: what it printed is all there is after the grace.
      const held = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, GIT_END_GRACE_MS);
      child.once('close', () => clearTimeout(held));
    });
    child.on('close', (code) => {
      running.delete(child);
      run.signal?.removeEventListener('abort', onAbort);
      resolve({ code, stdout: Buffer.concat(out), stderr, ...(cut ? { cut } : {}) });
    });
  });
}

/** The first line of what a failed git said, as a word for the user. */
export function gitProblem(r: GitResult): string {
  if (r.cut) return r.cut;
  const line = r.stderr.split('\n').find((l) => l.trim() !== '') ?? `git ended with ${r.code}`;
  return safeText(line).slice(0, 200);
}

/** Runs a shadow git that must succeed: its output, else an Error with git's word. */
export async function gitOk(place: GitPlace, args: readonly string[], run: GitRun = {}): Promise<Buffer> {
  const r = await git(place, args, run);
  if (r.code !== 0 || r.cut) throw new Error(gitProblem(r));
  return r.stdout;
}
