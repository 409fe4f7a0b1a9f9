// What the daemon hands a host: `<job>/launch.json` (what runs, where, at what size; no secret) and,
// on the host's standard input, the environment of the agent (never written to disk).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { int, isObj, stringMap, strings } from '../../shared/checks.js';
import { readBounded } from '../../shared/files.js';
import { AGENT_ID } from '../../shared/types.js';
import type { AgentId } from '../../shared/types.js';

export interface Launch {
  argv: string[];
  cwd: string;
  cols: number;
  rows: number;
  /** A prompt to type once the agent is up (templates whose prompt is not an argument). */
  typePrompt?: string;
  /**
   * The agent whose idle screen takes the typed prompt: a screen that does not show it yet (blank,
   * its banner) is its start, and what is typed there is lost. None: the first idle screen takes it.
   */
  typeInto?: AgentId;
  /** Started with no prompt and no agent: blocked on the user until it first works. */
  awaitingPrompt?: boolean;
  /**
   * Started with a task: it works from the start. An idle screen while its agent comes up is no
   * Idle (it reads as Working, `starting`, until the agent first works or asks, or STARTING_MS).
   */
  starting?: boolean;
  /** It resumes a session the agent ran before (the template's `resume`), not a new one. */
  resumes?: boolean;
}

const MAX_LAUNCH_BYTES = 512 * 1024;
const MAX_ENV_BYTES = 512 * 1024;

export const launchFile = (jobDir: string): string => path.join(jobDir, 'launch.json');

/** Writes a job's launch file (the daemon, before it starts the host). */
export function writeLaunch(jobDir: string, launch: Launch): void {
  writeFileSync(launchFile(jobDir), JSON.stringify(launch), { mode: 0o600 });
}

/** A job's launch file, or why it cannot be used. */
export function readLaunch(jobDir: string): Launch | string {
  const r = readBounded(launchFile(jobDir), MAX_LAUNCH_BYTES);
  if (!r.ok) return `cannot read launch.json: ${r.why}`;
  let v: unknown;
  try {
    v = JSON.parse(r.text);
  } catch {
    return 'launch.json is not JSON';
  }
  const size = int(2, 1000);
  if (
    !isObj(v) ||
    strings(v.argv) ||
    (v.argv as string[]).length === 0 ||
    typeof v.cwd !== 'string' ||
    size(v.cols) ||
    size(v.rows)
  ) {
    return 'launch.json is not a launch';
  }
  return {
    argv: v.argv as string[],
    cwd: v.cwd,
    cols: v.cols as number,
    rows: v.rows as number,
    typePrompt: typeof v.typePrompt === 'string' ? v.typePrompt : undefined,
    typeInto:
      typeof v.typePrompt === 'string' &&
      typeof v.typeInto === 'string' &&
      v.typeInto !== '' &&
      AGENT_ID.test(v.typeInto)
        ? v.typeInto
        : undefined,
    awaitingPrompt: v.awaitingPrompt === true,
    starting: v.starting === true,
    resumes: v.resumes === true,
  };
}

/** What comes on `stdin` until it ends, at most `maxBytes` (more is refused, naming `what`). */
export async function readInput(stdin: NodeJS.ReadableStream, maxBytes: number, what: string): Promise<string> {
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (text.length > maxBytes) throw new Error(`${what} is too large`);
  }
  return text;
}

/** Reads the agent's environment from standard input (JSON: a table of strings); {} when none came. */
export async function readEnvFromStdin(stdin: NodeJS.ReadableStream): Promise<Record<string, string>> {
  const text = await readInput(stdin, MAX_ENV_BYTES, 'the environment on standard input');
  if (text.trim() === '') return {};
  const v: unknown = JSON.parse(text);
  if (stringMap(v)) throw new Error('the environment on standard input is not a table of strings');
  return v as Record<string, string>;
}
