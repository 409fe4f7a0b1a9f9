// Qwen Code (`qwen`, @qwen-code/qwen-code 0.24): everything MadoHub knows of it (see types.ts) — its
// screens, its process, its job template and variables, its menus, and its records: the session
// registry (`<home>/sessions/<pid>.json`, which names the session a process runs) and the session's
// chat (`<home>/projects/<folder>/chats/<session>.jsonl`).
//
// Its screen (read from 0.24.4 against a local mock of an OpenAI-compatible API): a fork of Gemini
// CLI's, with the same input line (`>   Type your message or @path/to/file`) and API errors
// (`✕ [API Error: …]`). Prompts echo as `  > fix it`, answers as `  ◆︎ …`, tool calls as `  ✓ Shell …`
// (`?` while asked, `-` when cancelled); below the input box a footer names the folder
// (`  ➜ proj · git:(main) · model`) and the approval mode (`  ⏸ Ask permissions (shift + tab to
// cycle)`). The title is `Qwen - <folder>`, a spinner before it while it works (`◐︎`), `✳︎` while it
// asks. After a turn its input line may show a suggested next prompt, drawn like a draft: a real
// draft has a zero-width space after it (where the cursor stands), a suggestion none.
//
// Its chat records a prompt, each answer and tool result; not an API error nor an Escape during a
// turn (the screen tells those: see |madohub-precedence|).
import path from 'node:path';
import { homedir } from 'node:os';
import { SHARED_RULES } from '../detect/common.js';
import type { RecordLog } from '../records/follow.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { FolderWatcher } from '../records/folders.js';
import { RegistryRecords } from '../records/registry.js';
import type { RegistryEntry } from '../records/registry.js';
import { isObj, strOf, timeOf } from '../shared/checks.js';
import { clip } from '../shared/text.js';
import type { AgentState, RecordSignal } from '../shared/types.js';
import { digitOf } from './menus.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import type { AgentModule } from './types.js';
import { answerOfLastPrompt } from './recorded-answer.js';

/** Its approvals (`   Allow execution of: 'touch'?`, `   Apply this change?`) and its question's footer. */
const APPROVAL =
  /^ {3}(?:Allow execution of: .{1,200}\?|Apply this change\?|Do you want to proceed\?)|↑\/↓: Navigate \| Enter: Select \| Esc: Cancel/;

/** The footer of its approval mode (`  ⏸ Ask permissions (shift + tab to cycle)`, `  Auto mode (…)`). */
const MODE = /\(shift \+ tab to cycle\)$/;

/** Qwen Code's models have no price here (a user's `prices` may give them). */
const QWEN_PRICES: PriceTable = {};

export const qwen: AgentModule = {
  id: 'qwen',
  displayName: 'Qwen Code',
  bracketedPaste: true,
  screen: {
    id: 'qwen',
    markers: [/>_ Qwen Code \(v\d/, /^ {2}➜ \S.* · \S/, MODE, /^ {2}\? (?:Shell|WriteFile|Edit|AskUserQuestion) /],
    // `Qwen - proj`, `◐︎ Qwen - proj` (working), `✳︎ Qwen - proj` (asking).
    titleMarkers: [/^(?:\S+\s+)?Qwen - /],
    lines: [
      { name: 'approval', state: 'waiting', test: APPROVAL },
      // `  ⠏ Waiting for user confirmation...` under an approval or a question: the line above tells what.
      {
        name: 'confirmation',
        state: 'waiting',
        test: /^ {2}\S {1,2}Waiting for user confirmation\.\.\./,
        chrome: true,
        detail: 'waiting for confirmation',
      },
      { name: 'api-error', state: 'failed', test: /^\s*✕ \[API Error\b/ },
      // `  .  Loading the next great idea... (4s · esc to cancel)`.
      { name: 'spinner', state: 'working', test: /\(\d+[hms](?: \d+[ms])*(?: \d+s)? · esc to cancel\)$/ },
      { name: 'steer', state: 'working', test: /^ {2}Enter to steer · /, chrome: true, detail: 'working' },
      ...SHARED_RULES,
      {
        name: 'placeholder',
        state: 'idle',
        test: /^>\s+Type your message or @path\/to\/file|^ {2}Press Ctrl\+C again to exit\b/,
        hint: true,
        detail: 'idle',
      },
    ],
    titles: [
      { name: 'title-action-required', state: 'waiting', test: /^\s*✳\uFE0E?\s+Qwen - /, detail: 'action required' },
      { name: 'title-spinner', state: 'working', test: /^\s*[◐◓◑◒]\uFE0E?\s+Qwen - / },
    ],
    // `  > fix the parser` once sent; below it its answer, a tool call or its spinner (not the footer).
    prompt: {
      line: /^ {2}> (\S.*)$/,
      answered: /^ {2}(?![➜⏸⏵✎]|Auto mode|Enter to steer|Press Ctrl)\S/,
      // The input line with the zero-width space of its cursor after the text (a suggestion has none).
      draft: /^> (\S(?:.*\S)?) ?\u200b$/,
      inputEnd: /^─{8,}$/,
    },
  },
  // `node …/@qwen-code/qwen-code/cli.js`, which runs itself again (`node --expose-gc …/cli.js`).
  process: { names: ['qwen'], script: /(?:^|\/)qwen(?:\.js)?$|@qwen-code\/qwen-code\// },
  template: {
    description: 'Qwen Code',
    command: ['qwen'],
    prompt: 'type',
    resume: ['--resume', '{id}'],
    continue: ['--continue'],
    sessionId: ['--session-id', '{session}'],
  },
  // Its own (QWEN_HOME, QWEN_MODEL …), DashScope's, and the OpenAI-compatible API it is pointed at.
  env: { names: ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_MODEL'], prefixes: ['QWEN_', 'DASHSCOPE_'] },
  // `› 1. Yes, allow once`, `❯ 1. Red`: a choice's digit picks it at once (0.24.4).
  menuKeys: (choice) => digitOf(choice),
  records: (ctx) => new QwenRecords(qwenHome(ctx.env), ctx.pid, ctx.folders, ctx.emit, ctx.log, ctx.usage),
  jobRecordFile: (job, env) => qwenChatPath(qwenHome(env), job.cwd, job.resumeSessionId ?? job.sessionId),
  // The model's last text after the user's last prompt.
  // What it spends: each API response its chat's telemetry records, its sub-agents' counted in.
  usage: { reader: () => qwenUsage, prices: QWEN_PRICES },
  answerOf: (records) =>
    answerOfLastPrompt(
      records,
      (r) => isObj(r) && isPrompt(r),
      (rs, i) => {
        const r = rs[i];
        const text = isObj(r) && r.type === 'assistant' ? textOf(r) : '';
        return text.trim() !== '' ? text : undefined;
      },
    ),
};

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** Its folder: `$QWEN_HOME`, else `~/.qwen`. */
export function qwenHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.QWEN_HOME || path.join(env.HOME || homedir(), '.qwen');
}

/** A session id as a file name: one path segment. */
const SESSION = /^[A-Za-z0-9._-]{1,128}$/;

/** A session's chat: its folder named after the working folder (every character but letters and digits a `-`). */
export function qwenChatPath(home: string, cwd: string, sessionId: string): string | undefined {
  if (!SESSION.test(sessionId) || sessionId === '.' || sessionId === '..') return undefined;
  return path.join(home, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), 'chats', `${sessionId}.jsonl`);
}

/** What a registry file (`sessions/<pid>.json`) says of its process's session; its IPC token is not read. */
export function qwenSession(value: unknown, pid: number): { sessionId: string; cwd: string } | undefined {
  if (!isObj(value) || value.pid !== pid || (typeof value.schemaVersion === 'number' && value.schemaVersion > 1))
    return undefined;
  const sessionId = strOf(value.sessionId);
  const cwd = strOf(value.cwd);
  return sessionId && SESSION.test(sessionId) && cwd && path.isAbsolute(cwd) ? { sessionId, cwd } : undefined;
}

const partsOf = (r: Record<string, unknown>): unknown[] =>
  isObj(r.message) && Array.isArray(r.message.parts) ? r.message.parts : [];

/** The text of a record's parts (a thought is none). */
function textOf(r: Record<string, unknown>): string {
  return partsOf(r)
    .map((p) => (isObj(p) && p.thought !== true ? (strOf(p.text) ?? '') : ''))
    .join('');
}

/** The user's own prompt (a tool's result is sent back as `tool_result`). */
const isPrompt = (r: Record<string, unknown>): boolean =>
  r.type === 'user' && (r.provenance === undefined || r.provenance === 'real_user');

/**
 * One record of a Qwen Code 0.24 chat, as a state: a prompt is work, an answer that calls no tool
 * ends the turn (one that calls a tool tells nothing new); a tool's result is work, one cancelled (`[Operation
 * Cancelled]`: an approval answered with Escape) an interrupt. `system` records are no news.
 */
export function qwenChatRecord(record: unknown): RecordSignal | null {
  if (!isObj(record)) return null;
  const at = timeOf(record.timestamp);
  const signal = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  switch (record.type) {
    case 'user':
      return isPrompt(record) ? signal('working', 'prompt') : null;
    case 'assistant': {
      // A call of a tool is no news: the turn works since its prompt, and an approval of the call
      // shows on the screen as the record is written (a record read after it must not hide it).
      if (partsOf(record).some((p) => isObj(p) && isObj(p.functionCall))) return null;
      const text = clip(textOf(record));
      return text ? signal('completed', text) : signal('working', 'working');
    }
    case 'tool_result': {
      const cancelled = partsOf(record).some((p) => {
        const response =
          isObj(p) && isObj(p.functionResponse) && isObj(p.functionResponse.response)
            ? p.functionResponse.response
            : {};
        return (strOf(response.error) ?? '').startsWith('[Operation Cancelled]');
      });
      return cancelled ? signal('failed', 'interrupted') : signal('working', 'running tools');
    }
    default:
      return null;
  }
}

/**
 * Follows a Qwen Code process's session: its registry file (`sessions/<pid>.json`) names the
 * session (`/clear` and `/resume` name another under the same pid), and the session's chat is followed.
 */
export class QwenRecords extends RegistryRecords {
  constructor(
    home: string,
    pid: number,
    folders: FolderWatcher,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    usage?: UsageFeed,
  ) {
    const entryOf = (value: unknown): RegistryEntry | undefined => {
      const session = qwenSession(value, pid);
      if (!session) return undefined;
      const recordFile = qwenChatPath(home, session.cwd, session.sessionId);
      return { sessionId: session.sessionId, ...(recordFile ? { recordFile } : {}) };
    };
    const registryFile = path.join(home, 'sessions', `${pid}.json`);
    super({ registryFile, entryOf, interpret: qwenChatRecord, label: `qwen pid ${pid}`, usage }, folders, emit, log);
  }
}

/**
 * What one record of a Qwen Code chat says of spending, as its own session stats count it: each API
 * response its telemetry records (`qwen-code.api_response`: the answers, and the requests it makes
 * beside them), once by its response id; a sub-agent's (`subagent_id`) counted in as a sub-agent's.
 * Its prompt counts the cached part (told apart here); thoughts are output. The user's prompt begins a
 * turn. (An answer's own `usageMetadata` says again what its response's telemetry says.)
 */
export function qwenUsage(record: unknown): UsageReading | undefined {
  if (!isObj(record)) return undefined;
  const at = timeOf(record.timestamp);
  if (record.type === 'user' && record.provenance !== 'system') return { kind: 'prompt', at };
  const ui =
    isObj(record.systemPayload) && isObj(record.systemPayload.uiEvent) ? record.systemPayload.uiEvent : undefined;
  if (record.subtype !== 'ui_telemetry' || !ui || ui['event.name'] !== 'qwen-code.api_response') return undefined;
  const cached = countOf(ui.cached_content_token_count);
  return {
    kind: 'message',
    key: strOf(ui.response_id) ?? strOf(record.uuid),
    model: strOf(ui.model),
    sub: strOf(ui.subagent_id) !== undefined,
    at,
    tokens: {
      inputTokens: countOf(ui.input_token_count) - cached,
      outputTokens: countOf(ui.output_token_count) + countOf(ui.thoughts_token_count),
      cacheReadTokens: cached,
      cacheWriteTokens: 0,
    },
    contextTokens: countOf(ui.input_token_count),
  };
}
