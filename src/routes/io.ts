// What a route reads and writes outside the agents: the end of a record file, `git diff`, a file
// named as a target, a payload kept in a file. Shared by the routes of Neovim and of the daemon.
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
import { findLedger, reviewTurn, unifiedDiff } from '../review/read.js';
import { parseFleetId, reviewKey } from '../shared/fleet-id.js';
import { reviewDir } from '../shared/xdg.js';

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

/** How long after a turn's end its checkpoint may still be on its way (its bound, and a margin). */
const TURN_RECORD_WAIT_MS = 4000;
/** A checkpointed turn that ended this long before the route fired is an older one (routes fire 2 s apart at most). */
const TURN_END_SLACK_MS = 3000;

/** The review's key of a route's source, when its turns have checkpoints on this machine. */
function checkpointedKey(source: string): string | undefined {
  const id = parseFleetId(source);
  return id && (id.kind === 'term' || (id.kind === 'job' && id.host === '')) ? reviewKey(id) : undefined;
}

/**
 * `send=diff`: the change of the turn `source` just ended, from the checkpoints taken at its start and end
 * (issue 29): that turn's own, not the folder's whole difference from a commit. Waits for the end's
 * checkpoint (taken as the turn ended, in the background), bounded.
 */
export async function turnDiff(source: string, env: NodeJS.ProcessEnv, now: () => number = Date.now): Promise<string> {
  const key = checkpointedKey(source);
  if (!key) throw new Error(diffProblemOf({ id: source }) ?? 'no turn of it has checkpoints');
  const root = reviewDir(env);
  const firedAt = now();
  const deadline = firedAt + TURN_RECORD_WAIT_MS;
  for (;;) {
    const last = findLedger(root, key)?.ledger.turns.at(-1);
    if (last?.endedAt !== undefined && last.endedAt >= firedAt - TURN_END_SLACK_MS && (last.end || last.skipped)) break;
    if (now() >= deadline) throw new Error('the turn’s end checkpoint was not taken in time');
    await sleep(RECORD_POLL_MS);
  }
  const r = await reviewTurn(root, key);
  if (r.skipped) throw new Error(`the turn’s change is not known: ${r.skipped}`);
  return r.files.length === 0 ? '(no change in this turn)' : unifiedDiff(r).trimEnd();
}

/**
 * Why `send=diff` cannot work for a route's source (the engine's RouteBackend.diffProblem), or undefined:
 * its turns must have checkpoints here (a terminal's, a job's of this machine); any folder will do.
 */
export function diffProblemOf(source: { id: string } | undefined): string | undefined {
  if (source === undefined || checkpointedKey(source.id)) return undefined;
  return 'send=diff sends a turn checkpointed on this machine: a terminal’s or a job’s here';
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
