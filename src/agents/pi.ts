// Pi (`pi`, @mariozechner/pi-coding-agent 0.73): everything MadoHub knows of it (see types.ts) — its
// screens, its process, its job template and variables, and its records: the session file its
// process writes (`<agent dir>/sessions/--<folder>--/<time>_<id>.jsonl`).
//
// Its screen (read from 0.73.1 against a local mock of an OpenAI-compatible API, a provider of
// models.json): prompts and answers are plain lines one column in (a prompt is told from an answer
// only by its background colour, which MadoHub does not read), a spinner line while it works
// (` ⠇ Working...`, ` ⠋ Retrying (3/3) in 8s... (escape to cancel)`), then the input box between two
// rules, the folder and the context in use (`↑60 ↓30 0.0%/128k (auto)   model`). So the last block
// of lines above the input box is the current turn's news: ` Operation aborted` (Escape), ` Error: …`
// (its API's). It asks no approval and no question: its tools run at once. Its title is `π - <folder>`.
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { BRAILLE, SHARED_RULES } from '../detect/common.js';
import { processPlace } from '../proc/shared.js';
import { FoundFile } from '../records/follow.js';
import type { RecordLog } from '../records/follow.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { FolderWatcher } from '../records/folders.js';
import { firstRecord } from '../records/tail.js';
import { isObj, strOf, timeOf } from '../shared/checks.js';
import { clip } from '../shared/text.js';
import type { AgentState, RecordSignal } from '../shared/types.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import type { AgentModule, JobProcess } from './types.js';
import { answerOfLastPrompt } from './recorded-answer.js';

/** The rules around its input box. */
const RULE = /^─{8,}$/;

/**
 * Its footer of the context in use: `0.0%/128k (auto)`, with the tokens sent and received before it once it
 * has worked.
 */
const CONTEXT = /^(?:↑\d+\S* ↓\d+\S* )?(?:\$[\d.]+ )?[\d.]+%\/\d+k\b/;

/** Pi prices its models itself (each answer's `usage.cost`): no table of its own here. */
const PI_PRICES: PriceTable = {};

export const pi: AgentModule = {
  id: 'pi',
  displayName: 'Pi',
  bracketedPaste: true,
  screen: {
    id: 'pi',
    markers: [/^ pi v\d+\.\d+\.\d+$/, /^ escape interrupt · ctrl\+c\/ctrl\+d clear\/exit · /, CONTEXT],
    titleMarkers: [/^π - /],
    lines: [
      { name: 'aborted', state: 'failed', test: /^ Operation aborted$/, detail: 'interrupted' },
      { name: 'error', state: 'failed', test: /^ Error: \S/ },
      {
        name: 'spinner',
        state: 'working',
        test: new RegExp(`^ ${BRAILLE} (?:Working\\.\\.\\.|Retrying \\(\\d+/\\d+\\))`),
      },
      ...SHARED_RULES,
      { name: 'context', state: 'idle', test: CONTEXT, hint: true, detail: 'idle' },
    ],
    titles: [],
    inputBox: RULE,
    // Its footer: `↑1.6k ↓327 R5.1k $0.011 1.9%/128k (auto)`, the per cent of its window used.
    context: { line: /\b(\d{1,3}(?:\.\d+)?)%\/\d+(?:\.\d+)?[kM]\b/ },
    // Its input line is column 0 between the two rules (the footer's folder and context are not it);
    // no echo of a sent prompt can be told from an answer.
    prompt: {
      line: /^(?!)/,
      answered: /^(?!)/,
      draft: /^(?!─{8,}$)(?![~/]\S*(?: \([^)]*\))?$)(?!(?:↑\d+\S* ↓\d+\S* )?(?:\$[\d.]+ )?[\d.]+%\/\d+k\b)(\S.*)$/,
      inputEnd: RULE,
    },
  },
  // Node running `…/pi-coding-agent/dist/cli.js`, which names its process `pi` (its command line too).
  process: { names: ['pi'], script: /(?:^|\/)pi(?:\.js)?$|@mariozechner\/pi-coding-agent\// },
  template: {
    description: 'Pi',
    command: ['pi'],
    prompt: 'type',
    resume: ['--session', '{id}'],
    continue: ['--continue'],
  },
  // Its own (PI_CODING_AGENT_DIR, PI_OFFLINE …) and the providers' keys models.json may name.
  env: { names: [], prefixes: ['PI_'] },
  records: (ctx) => new PiRecords(ctx.env, ctx.pid, ctx.folders, ctx.claims, ctx.emit, ctx.log, ctx.usage),
  // A job's session: the file its process began (Pi takes no session id of the job's own).
  learnJobSession: (proc, env) => {
    const file = findSessionFile(sessionFolder(env, proc.cwd), proc, new Set());
    const id = file ? readHeader(file)?.sessionId : undefined;
    return file && id ? { id, file } : undefined;
  },
  jobRecordFile: (job, env) =>
    job.resumeSessionId ? sessionFileOf(sessionFolder(env, job.cwd), job.resumeSessionId) : undefined,
  // The model's last text after the user's last prompt.
  // What it spends: each answer's `usage` in its session file, with the cost Pi priced it at.
  usage: { reader: () => piUsage, prices: PI_PRICES },
  answerOf: (records) =>
    answerOfLastPrompt(
      records,
      (r) => messageOf(r)?.role === 'user',
      (rs, i) => {
        const m = messageOf(rs[i]);
        const text = m?.role === 'assistant' ? textOf(m.content) : '';
        return text.trim() !== '' ? text : undefined;
      },
    ),
};

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** Its folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function piAgentDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.PI_CODING_AGENT_DIR;
  if (dir) return dir === '~' || dir.startsWith('~/') ? path.join(env.HOME || homedir(), dir.slice(1)) : dir;
  return path.join(env.HOME || homedir(), '.pi', 'agent');
}

/** Where the sessions of a folder are: `$PI_CODING_AGENT_SESSION_DIR`, else `sessions/--<folder, / and : as ->--`. */
export function sessionFolder(env: NodeJS.ProcessEnv, cwd: string): string {
  if (env.PI_CODING_AGENT_SESSION_DIR) return env.PI_CODING_AGENT_SESSION_DIR;
  return path.join(piAgentDir(env), 'sessions', `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`);
}

/** The header line of a session file. */
export function piHeader(record: unknown): { sessionId: string; cwd: string; startedAt?: number } | null {
  if (!isObj(record) || record.type !== 'session') return null;
  const sessionId = strOf(record.id);
  const cwd = strOf(record.cwd);
  return sessionId && SESSION.test(sessionId) && cwd ? { sessionId, cwd, startedAt: timeOf(record.timestamp) } : null;
}

const readHeader = (file: string): ReturnType<typeof piHeader> | undefined => firstRecord(file, piHeader);

/** A session id: one path segment. */
const SESSION = /^[A-Za-z0-9-]{1,128}$/;
/** A session file's name: `<time>_<id>.jsonl`. */
const SESSION_FILE = /^[\w.:-]{1,64}_([A-Za-z0-9-]{1,128})\.jsonl$/;
/** The most session files looked at in a folder. */
const MAX_SESSIONS = 2000;

function sessionNames(folder: string): string[] {
  try {
    return readdirSync(folder)
      .filter((n) => SESSION_FILE.test(n))
      .sort()
      .slice(-MAX_SESSIONS);
  } catch {
    return [];
  }
}

/** The file of a session by its id. */
export function sessionFileOf(folder: string, id: string): string | undefined {
  const name = SESSION.test(id) ? sessionNames(folder).find((n) => SESSION_FILE.exec(n)?.[1] === id) : undefined;
  return name ? path.join(folder, name) : undefined;
}

/**
 * The session file a Pi process began: the earliest of its folder that starts with it or after it (a
 * second of slack), of its folder, and that no other terminal claimed.
 */
export function findSessionFile(
  folder: string,
  proc: Pick<JobProcess, 'cwd' | 'startedAt'>,
  claimed: ReadonlySet<string>,
): string | undefined {
  let best: { file: string; at: number } | undefined;
  for (const name of sessionNames(folder)) {
    const file = path.join(folder, name);
    if (claimed.has(file)) continue;
    const h = readHeader(file);
    if (!h || h.startedAt === undefined || h.cwd !== proc.cwd || h.startedAt < proc.startedAt - 1000) continue;
    if (!best || h.startedAt < best.at) best = { file, at: h.startedAt };
  }
  return best?.file;
}

interface PiMessage {
  role: string;
  content: unknown;
  stopReason?: string;
  errorMessage?: string;
}

function messageOf(record: unknown): PiMessage | undefined {
  if (!isObj(record) || record.type !== 'message' || !isObj(record.message) || typeof record.message.role !== 'string')
    return undefined;
  const m = record.message;
  return {
    role: m.role as string,
    content: m.content,
    stopReason: strOf(m.stopReason),
    errorMessage: strOf(m.errorMessage),
  };
}

/** The text blocks of a message's content (thinking and tool calls are none). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((c) => (isObj(c) && c.type === 'text' ? (strOf(c.text) ?? '') : '')).join('');
}

/**
 * One record of a Pi session (version 3), as a state: the user's message and a tool's result are
 * work; the model's message ends the turn by its `stopReason` (`stop`; `toolUse` goes on; `aborted`
 * is an interrupt; `error` an API error, written again for each retry). Other entries (the model
 * chosen, compactions, labels) are no news.
 */
export function piRecord(record: unknown): RecordSignal | null {
  const m = messageOf(record);
  if (!m) return null;
  const at = timeOf((record as Record<string, unknown>).timestamp);
  const signal = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  if (m.role === 'user') return signal('working', 'prompt');
  if (m.role === 'toolResult' || m.role === 'bashExecution') return signal('working', 'running tools');
  if (m.role !== 'assistant') return null;
  switch (m.stopReason) {
    case 'toolUse':
      return signal('working', 'running tools');
    case 'aborted':
      return signal('failed', 'interrupted');
    case 'error':
      return signal('failed', clip(m.errorMessage ?? '') || 'error');
    default:
      return signal('completed', clip(textOf(m.content)) || 'done');
  }
}

/** Follows the session file a Pi process began; while it is not there, waits in its folder. */
export class PiRecords extends FoundFile {
  private waiting?: string;

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly pid: number,
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    usage?: UsageFeed,
  ) {
    super(folders, claims, piRecord, emit, log, `pi pid ${pid}`, usage);
  }

  protected sessionIn(file: string): string | undefined {
    return readHeader(file)?.sessionId;
  }

  protected find(): string | undefined {
    const place = processPlace(this.pid);
    if (!place) return undefined;
    const folder = sessionFolder(this.env, place.cwd);
    const file = findSessionFile(folder, place, this.claims);
    if (!file && this.waiting !== folder) {
      this.waiting = folder;
      this.wait(this.folders.watch(folder, (_file, event) => event !== 'unlink' && this.look()));
    }
    return file;
  }
}

/**
 * What one record of a Pi session file says of spending: the user's message begins a turn; an answer
 * (`assistant`) has its request's `usage`, and the cost Pi gave it (`usage.cost.total`).
 */
export function piUsage(record: unknown): UsageReading | undefined {
  if (!isObj(record) || record.type !== 'message' || !isObj(record.message)) return undefined;
  const m = record.message;
  const at = timeOf(record.timestamp);
  if (m.role === 'user') return { kind: 'prompt', at };
  if (m.role !== 'assistant' || !isObj(m.usage)) return undefined;
  const u = m.usage;
  const cost = isObj(u.cost) && typeof u.cost.total === 'number' ? u.cost.total : undefined;
  return {
    kind: 'message',
    key: strOf(record.id),
    model: strOf(m.model),
    at,
    tokens: {
      inputTokens: countOf(u.input),
      outputTokens: countOf(u.output),
      cacheReadTokens: countOf(u.cacheRead),
      cacheWriteTokens: countOf(u.cacheWrite),
    },
    ...(cost === undefined ? {} : { costUsd: cost }),
    contextTokens: countOf(u.input) + countOf(u.cacheRead) + countOf(u.cacheWrite),
  };
}
