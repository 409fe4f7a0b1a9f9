// What a route reads and writes outside the agents: the end of a record file, `git diff`, a file
// named as a target, a payload kept in a file. Shared by the routes of Neovim and of the daemon.
import { execFile, execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { agentModule, lastAnswer, screenAnswer } from '../agents/index.js';
import type { AgentId } from '../shared/types.js';
import { readTail, writeAtomic } from '../shared/files.js';
import type { JobFile } from '../jobs/types.js';
import { linkProblem } from '../shared/links.js';
import type { Route } from '../shared/route-types.js';
import { textRows } from '../shared/text.js';
import type { TurnBounds } from '../state/turns.js';

/** The record file that holds a job's answers, as its agent's module tells it (AgentModule.jobRecordFile). */
export function jobRecordFile(
  job: Pick<JobFile, 'agent' | 'cwd' | 'sessionId' | 'resumeSessionId'>,
  env: NodeJS.ProcessEnv,
): string | undefined {
  return agentModule(job.agent).jobRecordFile?.(job, env);
}

const RECORD_TAIL_BYTES = 512 * 1024;
/** How long a finished turn's answer may take to land in its records after the turn's end was seen. */
const RECORD_WAIT_MS = 5000;
const RECORD_POLL_MS = 100;

/** What a route says when the records hold no answer of the turn that ended. */
export const NO_ANSWER = 'no answer recorded for this turn';

/** Parsed lines of the end of a record file (a first line cut in two is skipped). */
export function tailRecords(file: string): unknown[] {
  const r = readTail(file, RECORD_TAIL_BYTES);
  if (!r.ok) return [];
  const out: unknown[] = [];
  for (const line of r.text.split('\n')) {
    try {
      if (line.trim() !== '') out.push(JSON.parse(line));
    } catch {
      // A line cut by the tail, or one being written.
    }
  }
  return out;
}

/**
 * The answer of the turn that just ended, from a record file: the answer of its last prompt, once
 * that prompt is of this turn (recorded at or after `turn.since`; where the records say no time, once
 * the answer differs from the one taken before). A record may land after the screen shows the end:
 * it is looked for `waitMs`. `none` when no answer of this turn lands; undefined at once when there
 * is no such file (this agent writes none here).
 */
export async function recordAnswer(
  file: string,
  agent: AgentId,
  turn: TurnBounds,
  before: string | undefined,
  waitMs = RECORD_WAIT_MS,
): Promise<string | 'none' | undefined> {
  for (let waited = 0; ; waited += RECORD_POLL_MS) {
    if (waited === 0 && !existsSync(file)) return undefined;
    const a = lastAnswer(agent, tailRecords(file));
    if (a && (a.promptAt !== undefined ? turn.since === undefined || a.promptAt >= turn.since : a.text !== before))
      return a.text;
    if (waited >= waitMs) return 'none';
    await sleep(RECORD_POLL_MS);
  }
}

/**
 * The answer of the turn a source just ended: from its record file when it has one (this turn's,
 * waited for: throws NO_ANSWER when none lands), else from its screen. `taken` keeps the answer last
 * taken of each source.
 */
export async function turnAnswer(
  source: string,
  agent: AgentId,
  file: string | undefined,
  turn: TurnBounds,
  screen: () => Promise<readonly string[]>,
  taken: Map<string, string>,
): Promise<string | undefined> {
  const text = file ? await recordAnswer(file, agent, turn, taken.get(source)) : undefined;
  if (text === 'none') throw new Error(NO_ANSWER);
  if (text !== undefined) {
    taken.set(source, text);
    return text;
  }
  return screenAnswer(agent, await screen());
}

/** A screen's rows as text, the blank rows at its bottom left out. */
export function screenText(lines: readonly string[]): string {
  return lines.slice(0, textRows(lines)).join('\n');
}

/** `git diff HEAD` of a folder, bounded in time and size. */
export function gitDiff(cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-C', cwd, '--no-pager', 'diff', '--no-color', '--no-ext-diff', 'HEAD', '--'],
      { timeout: 5000, maxBuffer: 1024 * 1024, env: { ...env, GIT_TERMINAL_PROMPT: '0' } },
      (err, stdout, stderr) => {
        if (err) reject(new Error(`git diff in ${cwd}: ${(stderr || err.message).trim().split('\n')[0]}`));
        else resolve(stdout.trimEnd());
      },
    );
  });
}

/**
 * Why `send=diff` cannot work for a route's source (the engine's RouteBackend.diffProblem), or undefined
 * when it is gone.
 */
export function diffProblemOf(source: { cwd: string } | undefined, env: NodeJS.ProcessEnv): string | undefined {
  return source === undefined ? undefined : gitWorkTreeProblem(source.cwd, env);
}

/**
 * Why `git diff` cannot work in `cwd` (no folder, no git, not inside a work tree), or undefined. Asked
 * when a route with send=diff is made (bounded: 2 s), so that it is refused then, not when it fires.
 */
export function gitWorkTreeProblem(cwd: string, env: NodeJS.ProcessEnv): string | undefined {
  if (!cwd || !path.isAbsolute(cwd)) return 'its folder is not known';
  try {
    const out = execFileSync('git', ['-C', cwd, 'rev-parse', '--is-inside-work-tree'], {
      timeout: 2000,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...env, GIT_TERMINAL_PROMPT: '0' },
    });
    return out.trim() === 'true' ? undefined : `${cwd} is no git work tree`;
  } catch {
    return `${cwd} is no git work tree (or git does not run there)`;
  }
}

/** Appends to a file the user named as a route's target: a regular file only, never through a link, created 0600. */
export function appendText(file: string, text: string): void {
  const linked = linkProblem(file);
  if (linked) throw new Error(linked);
  // Non-blocking: a FIFO without a reader fails at once instead of hanging.
  const fd = openSync(
    file,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    0o600,
  );
  try {
    if (!fstatSync(fd).isFile()) throw new Error(`${file} is no regular file`);
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/** Where a route's payload too large to send is kept. */
export function spillFile(dir: string, route: Route, text: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, `${route.id}-${Date.now()}.txt`);
  writeAtomic(file, text);
  return file;
}
