// Google Gemini CLI (0.61).
// Everything MadoHub knows of it: see types.ts.
import { BRAILLE, ordered, SHARED_RULES } from '../detect/common.js';
import { digitOf } from './menus.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import type { AgentModule } from './types.js';
import { answerOfLastPrompt } from './recorded-answer.js';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { readConfigFile, readJsonBounded } from '../shared/files.js';
import { appendCommand } from '../records/push-file.js';
import { processPlace } from '../proc/shared.js';
import type { RecordLog } from '../records/follow.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { FolderWatcher } from '../records/folders.js';
import { FoundFile } from '../records/follow.js';
import { firstRecord } from '../records/tail.js';
import { isObj, strOf, timeOf } from '../shared/checks.js';
import { clip } from '../shared/text.js';
import type { AgentState, PushSignal, RecordSignal } from '../shared/types.js';

/** The hooks a job's Gemini CLI runs (0.61): a prompt sent, a tool's permission asked, the turn's end. */
const HOOK_EVENTS = ['BeforeAgent', 'Notification', 'AfterAgent'] as const;

/** What AfterAgent says when the turn gave no answer (an API error, an interrupt): the screen tells which. */
const NO_RESPONSE = '[no response text]';

/**
 * What one of Gemini CLI's hook events says (its JSON on the hook's standard input, as 0.61.0 gives
 * it): BeforeAgent is Working, a ToolPermission notification Waiting with the command or the tool,
 * AfterAgent with an answer Completed (without one, nothing: its screen says Failed).
 */
export function geminiHookSignal(event: unknown): PushSignal | undefined {
  if (!isObj(event)) return undefined;
  switch (strOf(event.hook_event_name)) {
    case 'BeforeAgent':
      return { state: 'working', detail: 'prompt sent' };
    case 'Notification': {
      if (event.notification_type !== 'ToolPermission') return undefined;
      const details = isObj(event.details) ? event.details : {};
      return {
        state: 'waiting',
        detail: clip(strOf(details.command) ?? strOf(details.title) ?? strOf(event.message) ?? 'permission'),
      };
    }
    case 'AfterAgent': {
      const answer = strOf(event.prompt_response);
      return answer && answer !== NO_RESPONSE ? { state: 'completed', detail: clip(answer) } : undefined;
    }
    default:
      return undefined;
  }
}

/** Where Gemini CLI reads its system defaults (the lowest of its settings' layers) when no variable names the file. */
function systemDefaultsPath(env: NodeJS.ProcessEnv): string {
  if (env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH) return env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
  const dir = process.platform === 'darwin' ? '/Library/Application Support/GeminiCli' : '/etc/gemini-cli';
  return path.join(dir, 'system-defaults.json');
}

/**
 * A job's settings: the system defaults as they are (their hooks kept: Gemini CLI concatenates every
 * layer's hooks), with the job's hooks added; named by GEMINI_CLI_SYSTEM_DEFAULTS_PATH for the job only.
 */
function geminiJobSettings(command: string, env: NodeJS.ProcessEnv): string {
  const base = readJsonBounded(systemDefaultsPath(env), 256 * 1024, readConfigFile);
  const defaults = isObj(base) ? base : {};
  const hooks = isObj(defaults.hooks) ? { ...defaults.hooks } : {};
  for (const e of HOOK_EVENTS) {
    const own = Array.isArray(hooks[e]) ? (hooks[e] as unknown[]) : [];
    hooks[e] = [...own, { hooks: [{ type: 'command', command, timeout: 5000 }] }];
  }
  return JSON.stringify({ ...defaults, hooks });
}

/** Google's prices of the models Gemini CLI runs (US dollars per million tokens, prompts to 200k tokens). */
const GEMINI_PRICES: PriceTable = {
  'gemini-2.5-pro': { input: 1.25, output: 10, cacheRead: 0.31, cacheWrite: 0, context: 1_048_576 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5, cacheRead: 0.075, cacheWrite: 0, context: 1_048_576 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4, cacheRead: 0.025, cacheWrite: 0, context: 1_048_576 },
};

export const gemini: AgentModule = {
  id: 'gemini',
  displayName: 'Gemini',
  bracketedPaste: true,
  screen: {
    id: 'gemini',
    markers: [
      /Type your message or @path\/to\/file/,
      /Gemini CLI/,
      /Do you trust the files in this folder\?/,
      // Its approval and question boxes alone: `│ Allow execution of [Shell]?`, `│ Allow execution of
      // MCP tool "add_note" from server "notes"?`, `│ Apply this change?`, `│ Answer Questions`, and
      // the `│ Action Required` header of 0.61's (an MCP tool, entering plan mode).
      /^│ (?:Allow execution of (?:\[|MCP tool )|Apply this change\?|(?:Answer Questions|Action Required)\s*│)/,
    ],
    titleMarkers: [/^\s*(?:◇|✦|✋)\s+(?:Ready|Working|Action Required)/],
    lines: [
      {
        name: 'approval',
        state: 'waiting',
        test: /Allow execution\b|Apply this change\b|Do you want to proceed\b|Do you trust the files in this folder\?|Enter to select · ↑\/↓ to navigate/,
      },
      // Its wait for a tool's confirmation, drawn on its spinner's row while the spinner still turns.
      { name: 'confirmation', state: 'waiting', test: /Waiting for user confirmation\b/i, overWork: true },
      // One Escape cancels a turn (`ℹ Request cancelled.`); an API error is `✕ [API Error: …]`.
      { name: 'cancelled', state: 'failed', test: /^\s*ℹ Request cancelled\./, detail: 'interrupted' },
      { name: 'api-error', state: 'failed', test: /^\s*✕ \[API Error\b/ },
      {
        name: 'spinner',
        state: 'working',
        test: ordered(new RegExp(`${BRAILLE}\\s`), '(esc to cancel', '(Esc to cancel', '(ESC to cancel'),
      },
      ...SHARED_RULES,
      { name: 'placeholder', state: 'idle', test: /Type your message or @path\/to\/file/, hint: true },
    ],
    titles: [
      { name: 'title-action-required', state: 'waiting', test: /^\s*✋\s+Action Required/, detail: 'action required' },
      { name: 'title-working', state: 'working', test: /^\s*✦\s+Working/ },
      { name: 'title-ready', state: 'idle', test: /^\s*◇\s+Ready/ },
    ],
    // `> summarize the README` outside the input box, then the answer or a spinner.
    // `> summarize the README` (older) or ` > explain the parser` (0.61), then the answer (`✦`, a spinner).
    prompt: { line: /^ ?> (\S.*)$/, answered: /^\s*(?:[✦⠀-⣿]|[^│╭╰\s])/ },
    // `✦ text` items; tool calls and the input line are boxes (`╭ │ ╰`); no line ends the turn.
    answer: {
      item: /^✦ (.*)$/,
      tool: /^(?!)/,
      chrome:
        /^\s*[╭│╰]|^\s*[⠀-⣿]|^~\/|no sandbox|^\s*\? for shortcuts|^─{8,}|Shift\+Tab to accept|^\s*>\s{2,}Type your message|^\s*workspace \(/,
      indent: /^ {2}/,
    },
  },
  process: { names: ['gemini'], script: /(?:^|\/)gemini(?:\.js)?$|@google\/gemini-cli\// },
  template: { description: 'Gemini CLI', command: ['gemini'], prompt: 'type' },
  env: { names: [], prefixes: ['GEMINI_', 'GOOGLE_'] },
  // `● 1. Allow once`: a choice's digit picks it at once (0.61.0, tried on its approvals).
  menuKeys: (choice) => digitOf(choice),
  // Its chat (`<home>/.gemini/tmp/<project>/chats/session-*.jsonl`), opened when it starts.
  records: (ctx) =>
    new GeminiRecords(geminiDir(ctx.env), ctx.pid, ctx.folders, ctx.claims, ctx.emit, ctx.log, ctx.usage),
  // A job's hooks, through system defaults of the job's own (the user's settings stay as they are).
  push: {
    launch: ({ settings, events }, env) => ({
      args: [],
      settings: geminiJobSettings(appendCommand(events), env),
      env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: settings },
    }),
    signal: geminiHookSignal,
  },
  // The model's last message with text, after the user's last prompt (tool results are not prompts).
  // What it spends: each answer's `tokens` in its chat.
  usage: { reader: () => geminiUsage, prices: GEMINI_PRICES },
  answerOf: (records) =>
    answerOfLastPrompt(records, isGeminiPrompt, (rs, i) => {
      const r = rs[i];
      return isObj(r) && r.type === 'gemini' && typeof r.content === 'string' && r.content.trim() !== ''
        ? r.content
        : undefined;
    }),
};

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** The header line that opens a Gemini CLI chat (`<gemini home>/tmp/<project>/chats/session-*.jsonl`). */
export interface GeminiChatHeader {
  sessionId: string;
  startedAt?: number;
  /** `main`, or `subagent` for a sub-agent's own chat. */
  kind: string;
}

export function geminiChatHeader(record: unknown): GeminiChatHeader | null {
  if (!isObj(record)) return null;
  const sessionId = strOf(record.sessionId);
  if (!sessionId || typeof record.projectHash !== 'string') return null;
  return { sessionId, startedAt: timeOf(record.startTime), kind: strOf(record.kind) ?? 'main' };
}

/** A Gemini chat message's content: a string, or the text parts of an array (function parts have none). */
function geminiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObj(part) ? (strOf(part.text) ?? '') : '')).join(' ');
}

/** A Gemini chat message that is a prompt of the user's (not the tools' results sent back as `user`). */
export function isGeminiPrompt(record: unknown): boolean {
  if (!isObj(record) || record.type !== 'user') return false;
  const content = record.content;
  return !(Array.isArray(content) && content.some((part) => isObj(part) && isObj(part.functionResponse)));
}

/**
 * One record of a Gemini CLI 0.61 chat. Gemini appends a message when it is complete: the user's
 * prompt (`user`), the model's response once it has streamed (`gemini`; empty when it only calls a
 * tool, written again with `toolCalls` once they ran), the tools' results sent back (`user` with
 * function responses), and notes (`info`: `Request cancelled.` after an Escape; `error`: an API
 * error). `$set` lines update the header or rewrite the history: no news of the turn.
 * A response with text is written before the tool call it may make is asked or run: its Completed is
 * `tentative` (the screen's question, or its end, tells which).
 */
export function geminiChatRecord(record: unknown): RecordSignal | null {
  if (!isObj(record) || '$set' in record) return null;
  const at = timeOf(record.timestamp);
  const jsonl = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  switch (record.type) {
    case 'user':
      return jsonl('working', isGeminiPrompt(record) ? 'prompt' : 'running tools');
    case 'gemini': {
      if (Array.isArray(record.toolCalls) && record.toolCalls.length > 0) return jsonl('working', 'running tools');
      const text = clip(geminiText(record.content));
      return text ? { ...jsonl('completed', text), tentative: true } : jsonl('working', 'calling a tool');
    }
    case 'info':
      return geminiText(record.content).trim() === 'Request cancelled.' ? jsonl('failed', 'interrupted') : null;
    case 'error':
      return jsonl('failed', clip(geminiText(record.content)) || 'error');
    default:
      return null;
  }
}

/** Gemini CLI's folder: `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`. */
export function geminiDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.GEMINI_CLI_HOME || env.HOME || homedir(), '.gemini');
}

/** The registry of projects is a small JSON file; a larger one is not read. */
const MAX_REGISTRY_BYTES = 1024 * 1024;
/** The most chat files looked at in one folder. */
const MAX_CHATS = 2000;
const CHAT = /^session-[^/]*\.jsonl$/;
/** A project's short id as Gemini makes them (the folder's name, `-1`, `-2`…): one path segment. */
const SHORT_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The project ids `projects.json` gives `cwd` (0.61: `{"projects": {"<cwd>": "<short id>"}}`). */
function registeredId(dir: string, cwd: string): string | undefined {
  // A regular file only (a FIFO would block), of a bounded size.
  const data = readJsonBounded(path.join(dir, 'projects.json'), MAX_REGISTRY_BYTES);
  const projects = isObj(data) ? data.projects : undefined;
  if (!isObj(projects)) return undefined;
  const id = projects[cwd];
  return typeof id === 'string' && SHORT_ID.test(id) && id !== '.' && id !== '..' ? id : undefined;
}

/**
 * The folders that may hold the chats of a Gemini session working in `cwd`: its project's short id
 * from the registry (0.61), and the SHA-256 of the folder (the versions before the registry).
 */
export function chatFolders(dir: string, cwd: string): string[] {
  const ids = [registeredId(dir, cwd), createHash('sha256').update(cwd).digest('hex')];
  return ids.filter((id): id is string => id !== undefined).map((id) => path.join(dir, 'tmp', id, 'chats'));
}

/** A chat's header (its first line). */
export function readChatHeader(file: string): GeminiChatHeader | undefined {
  return firstRecord(file, geminiChatHeader);
}

/**
 * Which chat belongs to a Gemini process started at `startedAt`: Gemini opens its chat when it
 * starts, so the earliest main chat of its folders that starts with it or after it, and that no other
 * terminal claimed (two Gemini sessions in one folder must not be crossed).
 */
export function findChat(
  folders: readonly string[],
  startedAt: number,
  claimed: ReadonlySet<string>,
): string | undefined {
  let best: { file: string; startedAt: number } | undefined;
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder)
        .filter((n) => CHAT.test(n))
        .slice(-MAX_CHATS);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(folder, name);
      if (claimed.has(file)) continue;
      const header = readChatHeader(file);
      if (header?.kind !== 'main' || header.startedAt === undefined) continue;
      // A second of slack for the clocks.
      if (header.startedAt < startedAt - 1000) continue;
      if (!best || header.startedAt < best.startedAt) best = { file, startedAt: header.startedAt };
    }
  }
  return best?.file;
}

/** Follows one Gemini process's chat; while it is not found, waits for it in its folders. */
export class GeminiRecords extends FoundFile {
  constructor(
    private readonly dir: string,
    readonly pid: number,
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    usage?: UsageFeed,
  ) {
    super(folders, claims, geminiChatRecord, emit, log, `gemini pid ${pid}`, usage);
  }

  protected sessionIn(file: string): string | undefined {
    return readChatHeader(file)?.sessionId;
  }

  protected find(): string | undefined {
    const place = processPlace(this.pid);
    if (!place) return undefined;
    const candidates = chatFolders(this.dir, place.cwd);
    const file = findChat(candidates, place.startedAt, this.claims);
    // Wait in its folders, and in Gemini's own: the registry may name the project only once Gemini has started.
    if (!file)
      for (const dir of [this.dir, ...candidates])
        this.waitIn(
          dir,
          (name, event) => (event === 'add' || event === 'change') && (CHAT.test(name) || name === 'projects.json'),
        );
    return file;
  }
}

/**
 * What one record of a Gemini CLI chat says of spending: the user's prompt (not a tool's result)
 * begins a turn; an answer
 * (`gemini`) has its request's `tokens` (its input counts the cached part and the tool's prompt
 * apart: told apart here; its thoughts are output). A message written again (its id) replaces itself.
 */
export function geminiUsage(record: unknown): UsageReading | undefined {
  if (!isObj(record)) return undefined;
  const at = timeOf(record.timestamp);
  // The user's prompt, not a tool's result (also a `user` record).
  if (isGeminiPrompt(record)) return { kind: 'prompt', at };
  if (record.type !== 'gemini' || !isObj(record.tokens)) return undefined;
  const t = record.tokens;
  const cached = countOf(t.cached);
  return {
    kind: 'message',
    key: strOf(record.id),
    model: strOf(record.model),
    at,
    tokens: {
      inputTokens: countOf(t.input) - cached + countOf(t.tool),
      outputTokens: countOf(t.output) + countOf(t.thoughts),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    },
    contextTokens: countOf(t.input) + countOf(t.tool),
  };
}
