// Continue CLI (`cn`, @continuedev/cli 1.5): its screens (read from 1.5.47 against a local mock of an
// OpenAI-compatible API named by its config.yaml, at 120×40, 80×24 and 60×20), its process, its job
// template. Everything MadoHub knows of it: see types.ts.
//
// Its screen: the prompts it echoes and its answers alike as `● text` (the echo cannot be told from an
// answer), a spinner row `⠅⠃⠉  ( 1s • esc to interrupt )` right above its input box while a turn runs,
// the input box (`│ ● ▋Ask anything, @ for context, …│`) and under it its footer, the folder on the
// left and `◉ Continue CLI` on the right. An approval or a question takes the input box's place (the
// spinner row still turning above it). It sets no terminal title.
//
// Its records: a session file (`<home>/sessions/<id>.json`, home `$CONTINUE_GLOBAL_DIR` or
// `~/.continue`), created with the first prompt and rewritten whole with each change: its `history`
// (the prompt as the turn begins, each answer as it is complete, a tool call's state), its `usage`
// (the session's totals and the cost Continue priced them at). `sessions.json` beside it lists every
// session with its folder and when it was created.
import { homedir } from 'node:os';
import path from 'node:path';
import { SHARED_RULES } from '../detect/common.js';
import { processPlace } from '../proc/shared.js';
import type { FolderWatcher } from '../records/folders.js';
import { FoundFile, followJsonDocument } from '../records/follow.js';
import type { DocumentReading, RecordLog } from '../records/follow.js';
import type { UsageFeed } from '../records/usage-feed.js';
import { isObj, strOf } from '../shared/checks.js';
import { readJsonBounded } from '../shared/files.js';
import { clip } from '../shared/text.js';
import type { RecordSignal } from '../shared/types.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import type { AgentModule } from './types.js';

/** The input box's borders (an approval's and a question's box are drawn the same). */
const BOX = /^[╭╰]─{8,}[╮╯]$/;

/** Its footer's right end. */
const FOOTER = /◉ Continue CLI$/;

/** Its input box's placeholder, its first row (at 60 columns the rest wraps). */
const PLACEHOLDER = /^│ ● ▋?Ask anything, @ for context, \//;

/** A tool's approval: `Would you like to continue?` over `> Continue (tab)` … `No, and tell Continue … (esc)`. */
const APPROVAL =
  /^│ {2,}(?:Would you like to continue\?|> Continue \(tab\)|Continue \+ don't ask again \(shift\+tab\)|No, and tell Continue what to do differently \(esc\))/;

/** Its question tool's menu (`? Which colour…` over `❯ Red`, no numbers): its key help and its free answer. */
const QUESTION = /^│ {2,}(?:↑\/↓ navigate, Enter select|\(or start typing for custom answer\))\s*│$/;

/** Continue prices its models itself (its session's `totalCost`): no table of its own here. */
const CN_PRICES: PriceTable = {};

export const cn: AgentModule = {
  id: 'cn',
  displayName: 'Continue CLI',
  bracketedPaste: true,
  screen: {
    id: 'cn',
    markers: [FOOTER, PLACEHOLDER, /No, and tell Continue what to do differently \(esc\)/],
    titleMarkers: [],
    lines: [
      { name: 'approval', state: 'waiting', test: APPROVAL, detail: 'approval' },
      { name: 'question', state: 'waiting', test: QUESTION, detail: 'question' },
      {
        name: 'interrupted',
        state: 'failed',
        test: /^ Interrupted by user - Press enter to continue$/,
        detail: 'interrupted',
      },
      // A tool refused (Escape at its approval): the turn ends there. Its line wraps in a narrow window.
      { name: 'tool-canceled', state: 'failed', test: /^\[Tool canceled - \S/, detail: 'tool refused' },
      // Its errors stand at column 0 (an answer's text is one column in, after `● `).
      { name: 'error', state: 'failed', test: /^Error: \S/ },
      ...SHARED_RULES,
      { name: 'placeholder', state: 'idle', test: PLACEHOLDER, hint: true, detail: 'idle' },
      { name: 'footer', state: 'idle', test: FOOTER, hint: true, detail: 'idle' },
    ],
    titles: [],
    // Its echoed prompts look like its answers: the current turn is the block above the input box.
    inputBox: BOX,
    prompt: {
      line: /^(?!)/,
      answered: /^(?!)/,
      // A draft in the input box: `│ ● fix the parser │` (not its placeholder).
      draft: /^│ ● (?!▋?Ask anything, @ for context)(\S.*)│$/,
      // Its empty rows (an Enter taken as a new line leaves one under the text).
      skip: /^│\s*│$/,
      inputEnd: /^╰─{8,}╯$/,
    },
  },
  // `node …/.bin/cn` (its launcher), `node …/@continuedev/cli/dist/cn.js`.
  process: { names: ['cn'], script: /(?:^|\/)cn(?:\.js)?$|@continuedev\/cli\// },
  template: {
    description: 'Continue CLI',
    command: ['cn'],
    prompt: 'type',
    // It resumes its last session (no session by id: `--fork <id>` starts a new one from it).
    continue: ['--resume'],
  },
  // Its own (CONTINUE_GLOBAL_DIR, CONTINUE_API_BASE …).
  env: { names: [], prefixes: ['CONTINUE_'] },
  // Its session file, found by its folder and its start (it is created with the first prompt).
  records: (ctx) => new CnRecords(ctx.env, ctx.pid, ctx.folders, ctx.claims, ctx.emit, ctx.log, ctx.usage),
  // What it spends: its session's totals, with the cost Continue priced them at.
  usage: { reader: () => cnUsage, prices: CN_PRICES },
};

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** A session's id as it names its file. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;

/** The largest `sessions.json` read (its list of sessions). */
const MAX_INDEX_BYTES = 4 * 1024 * 1024;

/** Its home: `$CONTINUE_GLOBAL_DIR` (a relative one: from the folder it runs in), else `~/.continue`. */
export function cnHome(env: NodeJS.ProcessEnv, cwd?: string): string {
  const dir = env.CONTINUE_GLOBAL_DIR;
  if (dir) return path.isAbsolute(dir) || cwd === undefined ? dir : path.resolve(cwd, dir);
  return path.join(env.HOME || homedir(), '.continue');
}

/** A history item's message: its role, its text, its tool calls' states. */
function messageOf(item: unknown): { role?: string; text: string; tools: string[] } {
  const message = isObj(item) && isObj(item.message) ? item.message : {};
  const states = isObj(item) && Array.isArray(item.toolCallStates) ? item.toolCallStates : [];
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls.length : 0;
  return {
    role: strOf(message.role),
    text: typeof message.content === 'string' ? message.content.trim() : '',
    // Each call's state (`generated` while it is asked about, `calling`, `done`, `canceled`, `errored`).
    tools: [
      ...states.map((t) => (isObj(t) ? (strOf(t.status) ?? '') : '')),
      ...Array<string>(Math.max(0, calls - states.length)).fill('generated'),
    ],
  };
}

/**
 * What a session file says now, from its last message: the user's prompt, the turn is under way; an
 * answer that calls tools, it goes on (whatever it asks is on the screen), unless the user refused
 * one (the turn ends there); an answer without a call, the turn's end. Undefined: not a session.
 */
export function cnSession(document: unknown): DocumentReading | undefined {
  if (!isObj(document) || !Array.isArray(document.history)) return undefined;
  const history: readonly unknown[] = document.history;
  const records = { records: history, whole: document };
  const last = history.length > 0 ? messageOf(history.at(-1)) : undefined;
  const signal = (state: RecordSignal['state'], detail: string): DocumentReading => ({
    ...records,
    signal: { state, source: 'jsonl-watcher', detail },
  });
  if (last?.role === 'user') return signal('working', 'prompt');
  if (last?.role !== 'assistant') return { ...records, signal: null };
  if (last.tools.includes('canceled')) return signal('failed', 'tool refused');
  if (last.tools.length > 0) return signal('working', 'running tools');
  return signal('completed', last.text === '' ? 'turn ended' : clip(last.text));
}

/**
 * What a session file tells of spending: each prompt the user wrote begins a turn; the file itself
 * (its `usage`) has the session's totals and their cost, Continue's own price.
 */
export function cnUsage(record: unknown): UsageReading | undefined {
  if (!isObj(record)) return undefined;
  if (isObj(record.message)) return record.message.role === 'user' ? { kind: 'prompt' } : undefined;
  if (!Array.isArray(record.history) || !isObj(record.usage)) return undefined;
  const u = record.usage;
  const cached = isObj(u.promptTokensDetails) ? countOf(u.promptTokensDetails.cachedTokens) : 0;
  const written = isObj(u.promptTokensDetails) ? countOf(u.promptTokensDetails.cacheWriteTokens) : 0;
  const cost = typeof u.totalCost === 'number' && Number.isFinite(u.totalCost) && u.totalCost >= 0 ? u.totalCost : 0;
  return {
    kind: 'total',
    key: strOf(record.sessionId) ?? '',
    tokens: {
      inputTokens: Math.max(0, countOf(u.promptTokens) - cached - written),
      outputTokens: countOf(u.completionTokens),
      cacheReadTokens: cached,
      cacheWriteTokens: written,
    },
    costUsd: cost,
  };
}

/**
 * The session file of the Continue process started at `startedAt` in `cwd`: the earliest session of
 * `sessions.json` in that folder created with the process or after it, that no other terminal claimed.
 */
export function findCnSession(
  home: string,
  place: { cwd: string; startedAt: number },
  claimed: ReadonlySet<string>,
): string | undefined {
  const index = readJsonBounded(path.join(home, 'sessions', 'sessions.json'), MAX_INDEX_BYTES);
  if (!Array.isArray(index)) return undefined;
  let best: { file: string; created: number } | undefined;
  for (const entry of index.slice(-1000)) {
    if (!isObj(entry) || entry.workspaceDirectory !== place.cwd) continue;
    const id = strOf(entry.sessionId);
    const created = Number(entry.dateCreated);
    // A second of slack for the clocks.
    if (!id || !SESSION_ID.test(id) || !Number.isFinite(created) || created < place.startedAt - 1000) continue;
    const file = path.join(home, 'sessions', `${id}.json`);
    if (claimed.has(file)) continue;
    if (!best || created < best.created) best = { file, created };
  }
  return best?.file;
}

/** Follows one Continue process's session file; while it is not there (no prompt yet), waits for it. */
export class CnRecords extends FoundFile {
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly pid: number,
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    usage?: UsageFeed,
  ) {
    super(folders, claims, () => null, emit, log, `cn pid ${pid}`, usage);
  }

  protected sessionIn(file: string): string | undefined {
    return path.basename(file, '.json');
  }

  protected find(): string | undefined {
    const place = processPlace(this.pid);
    if (!place) return undefined;
    // Its home as the process reads it (a relative $CONTINUE_GLOBAL_DIR: from its folder).
    const home = cnHome(this.env, place.cwd);
    const file = findCnSession(home, place, this.claims);
    if (!file) this.waitIn(path.join(home, 'sessions'), (name) => name === 'sessions.json');
    return file;
  }

  protected override followFile(file: string): { stop(): void; poke(): void } {
    return followJsonDocument(
      file,
      this.folders,
      cnSession,
      this.emit,
      (why) => this.log.debug(`${this.label}: ${file}: ${why}`),
      this.usage,
    );
  }
}
