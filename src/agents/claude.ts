// Claude Code (2.x): everything MadoHub knows of it (see types.ts) — its screens, its process, its
// job template and variables, its menus, its records (the session file and the transcript it names),
// the file that holds a job's answers, its sessions elsewhere, how a background session is attached.
import { homedir } from 'node:os';
import path from 'node:path';
import { both, COMPLETION, SHARED_RULES } from '../detect/common.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { FolderWatcher } from '../records/folders.js';
import type { RecordLog } from '../records/follow.js';
import { appendCommand } from '../records/push-file.js';
import { RegistryRecords } from '../records/registry.js';
import type { RegistryEntry } from '../records/registry.js';
import { isObj, strOf, timeOf } from '../shared/checks.js';
import { SHORT_ID } from '../shared/fleet-id.js';
import { answerOfLastPrompt } from './recorded-answer.js';
import { clip, MAX_DETAIL, noControl } from '../shared/text.js';
import type { AgentState, PushSignal, RecordSignal } from '../shared/types.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import { arrowsTo } from './menus.js';
import type { AgentModule, SessionElsewhere } from './types.js';

/**
 * The hooks a job's Claude Code runs (2.1: `UserPromptSubmit`, `PermissionRequest`, `Notification`, `Stop`,
 * `StopFailure`).
 */
const HOOK_EVENTS = ['UserPromptSubmit', 'PermissionRequest', 'Notification', 'Stop', 'StopFailure'] as const;

/**
 * What one of Claude Code's hook events says (its JSON on the hook's standard input, as 2.1.332
 * gives it): a prompt sent is Working; a permission dialog is Waiting, with the tool and its command
 * or file; the turn's end is Completed with its last answer, a failed turn (an API error) Failed. A
 * sub-agent's event (`agent_id`) is the sub-agent's, not the session's: nothing.
 */
export function claudeHookSignal(event: unknown): PushSignal | undefined {
  if (!isObj(event) || event.agent_id !== undefined) return undefined;
  const name = strOf(event.hook_event_name);
  switch (name) {
    case 'UserPromptSubmit':
      return { state: 'working', detail: 'prompt sent' };
    case 'PermissionRequest': {
      const input = isObj(event.tool_input) ? event.tool_input : {};
      const what = strOf(input.command) ?? strOf(input.file_path) ?? strOf(input.url) ?? '';
      return {
        state: 'waiting',
        detail: clip(`${strOf(event.tool_name) ?? 'a tool'}${what ? `: ${what}` : ''}`, MAX_DETAIL),
      };
    }
    case 'Notification':
      // `permission_prompt` says again that a dialog waits; `idle_prompt` (a minute after a turn) tells nothing new.
      return event.notification_type === 'permission_prompt'
        ? { state: 'waiting', detail: clip(strOf(event.message) ?? 'permission', MAX_DETAIL), repeat: true }
        : undefined;
    case 'Stop':
      return { state: 'completed', detail: clip(strOf(event.last_assistant_message) ?? 'turn ended', MAX_DETAIL) };
    case 'StopFailure':
      return {
        state: 'failed',
        detail: clip(strOf(event.error) ?? strOf(event.last_assistant_message) ?? 'error', MAX_DETAIL),
      };
    default:
      return undefined;
  }
}

/**
 * Anthropic's prices of the models Claude Code runs (US dollars per million tokens; a cache write is
 * the five-minute one), and their context windows.
 */
const CLAUDE_PRICES: PriceTable = {
  'claude-opus-4-5': { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25, context: 200_000 },
  'claude-opus-4-1': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, context: 200_000 },
  'claude-opus-4': { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75, context: 200_000 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, context: 200_000 },
  'claude-sonnet-4': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, context: 200_000 },
  'claude-3-7-sonnet': { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, context: 200_000 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25, context: 200_000 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1, context: 200_000 },
};

export const claude: AgentModule = {
  id: 'claude',
  displayName: 'Claude Code',
  default: true,
  bracketedPaste: true,
  screen: {
    id: 'claude',
    // Its glyphs and footers in every version, so that a screen whose banner has scrolled away still
    // names it: the answer item `● ` (1.x, 2.0) or `⏺`, the result branch `⎿`, its spinner `✻`, the
    // 2.0 footer's thinking switch and plan mode, the 1.0 banner's help line and start tips.
    markers: [
      /[❯✽⏺⎿✻]/,
      /Claude Code/,
      /^● /,
      /Thinking (?:on|off) \(tab to toggle\)/,
      /plan mode on \(shift\+tab to cycle\)/,
      /\/help for help, \/status for your current setup|Run \/init to create a CLAUDE\.md file/,
    ],
    titleMarkers: [/Claude Code/],
    // Its spinner stands right above its input box: one higher up, output under it, is left behind.
    workInLatestBlock: true,
    lines: [
      {
        name: 'interrupted',
        state: 'failed',
        test: /Interrupted · What should Claude do instead\?/,
        detail: 'interrupted',
      },
      // 1.0: `  ⎿  Interrupted by user` under the prompt.
      { name: 'interrupted-1.0', state: 'failed', test: /^\s*⎿\s+Interrupted by user\b/, detail: 'interrupted' },
      // An API error ends the turn: `● API Error: 400 …`.
      { name: 'api-error', state: 'failed', test: /^\s*[●⏺] API Error\b/ },
      // Its session picker (`/resume`, which waits for a turn to end before it opens): its search box
      // (`⌕ Search…` until something is typed; the history search's is `⌕ Filter history…`) or its
      // footer (`… Type to search · Esc to close`, `Enter to resume · Esc to close`, `Type to search ·
      // Enter to select · Esc to clear` once something is typed): nothing runs.
      {
        name: 'session-picker',
        state: 'idle',
        test: /^\s*(?:│\s*)?⌕ Search…|\bto (?:search|resume) · (?:Enter to select · )?Esc to (?:close|cancel|clear)\s*$/,
        overlay: true,
        detail: 'session picker',
      },
      ...SHARED_RULES,
      // A dialog's own way out (`Esc to cancel` under its choices), over a spinner still turning; not
      // the history search's (`Enter to use · Esc to cancel`), which asks nothing.
      {
        name: 'esc-to-cancel',
        state: 'waiting',
        test: both(/\besc to cancel\b/i, /^(?!.*\bEnter to use\b)/),
        overWork: true,
      },
      // The interrupt hint of older versions, on the spinner's row or under it.
      {
        name: 'ctrl-c-to-interrupt',
        state: 'working',
        test: /\bctrl\+c to interrupt\b/i,
        chrome: true,
        detail: 'working',
      },
      // Spinner row of 2.1: a glyph, then `<Verb>ing…` (`✶ Baking… (3s · esc to interrupt)`).
      { name: 'spinner', state: 'working', test: /^\s*[·✢*✶✻✽✳∗]\s*[A-Z][a-z]+ing(?:…|\.\.\.)/ },
      // Trust dialog and approvals (shell, edit, MCP tool), its questions to the user (`Enter to
      // select · ↑/↓ to navigate`) and the end of plan mode (`Exit plan mode?`): waiting for the user.
      {
        name: 'dialog',
        state: 'waiting',
        test: /Enter to confirm · Esc to cancel|Esc to cancel · Tab to amend|Enter to select · ↑\/↓ to navigate|^\s*Exit plan mode\?|Claude wants to exit plan mode/,
      },
      // The input prompt at the left edge (dialog choices like ` ❯ 1. Yes` are indented). Short turns
      // end without a completion line: the prompt alone then says the turn is over.
      { name: 'prompt', state: 'idle', test: /^❯(?:\s|$)/, hint: true },
    ],
    titles: [
      // A spinner before the name means a turn is running; `✳ Claude Code` is idle or waiting.
      { name: 'title-spinner', state: 'working', test: /^\s*(?:[◐◑◒◓]|[\u2801-\u28ff])\s+Claude Code/ },
    ],
    // `> add a test` (older) or `❯ tell me something slow` (2.1), then the answer (`●`, `⏺`, `⎿`, a spinner).
    prompt: {
      line: /^(?:>|❯) (\S.*)$/,
      answered: /^\s*(?:[●⏺⎿·✢*✶✻✽✳]|\S.*…)/,
      // The input line draws a no-break space after its glyph (2.0 on; 1.0 in a box: `│ > say hello │`),
      // and its placeholders (`Try "fix typecheck errors"`; `Press up to edit queued messages` while a
      // message waits) in the same place: those are no draft.
      draft: /^(?:│[ \u00a0])?(?:>|❯)[ \u00a0](\S.*?)[ \u00a0]*│?$/,
      not: /^(?:Try ".*"|Press up to edit queued messages)$/,
    },
    // `● text` items, `● Bash(rm -rf build)` tool calls with `  ⎿  Done` under them; the completion line ends the turn.
    answer: {
      end: COMPLETION,
      item: /^[●⏺] (.*)$/,
      tool: /^[●⏺] [A-Z][\w.:-]*\(.*\)\s*$/,
      chrome: /^─{8,}|^❯(?:\s|$)|^\s*[·✢*✶✻✽✳∗]\s*[A-Z][a-z]+ing(?:…|\.\.\.)/,
      indent: /^ {2}/,
    },
  },
  // The native `claude` (or `claude.exe`), or node running `…/claude` or `@anthropic-ai/claude-code/cli.js`.
  process: { names: ['claude', 'claude.exe'], script: /(?:^|\/)claude(?:\.js)?$|@anthropic-ai\/claude-code\// },
  template: {
    description: 'Claude Code',
    command: ['claude'],
    prompt: 'arg',
    resume: ['--resume', '{id}'],
    continue: ['--continue'],
    fork: ['--fork-session'],
    sessionId: ['--session-id', '{session}'],
  },
  env: {
    names: [
      'DISABLE_AUTOUPDATER',
      'DISABLE_TELEMETRY',
      'DISABLE_ERROR_REPORTING',
      'DISABLE_BUG_COMMAND',
      'DISABLE_COST_WARNINGS',
      'DISABLE_NON_ESSENTIAL_MODEL_CALLS',
      'MAX_THINKING_TOKENS',
      'MCP_TIMEOUT',
      'MCP_TOOL_TIMEOUT',
      'MAX_MCP_OUTPUT_TOKENS',
      'BASH_DEFAULT_TIMEOUT_MS',
      'BASH_MAX_TIMEOUT_MS',
      'BASH_MAX_OUTPUT_LENGTH',
      'USE_BUILTIN_RIPGREP',
      'ENABLE_TOOL_SEARCH',
      'CLOUD_ML_REGION',
    ],
    prefixes: ['ANTHROPIC_', 'CLAUDE_', 'DISABLE_PROMPT_CACHING', 'VERTEX_REGION_'],
  },
  // Its session file (`<config>/sessions/<pid>.json`) and the transcript it names.
  records: (ctx) => new ClaudeRecords(claudeConfigDir(ctx.env), ctx.pid, ctx.folders, ctx.emit, ctx.log, ctx.usage),
  // A job's hooks, through `--settings` (a layer over the user's own settings, which stay as they are).
  push: {
    launch: ({ settings, events }) => ({
      args: ['--settings', settings],
      settings: JSON.stringify({
        hooks: Object.fromEntries(
          HOOK_EVENTS.map((e) => [e, [{ hooks: [{ type: 'command', command: appendCommand(events), timeout: 5 }] }]]),
        ),
      }),
    }),
    signal: claudeHookSignal,
  },
  // Its notifications to the terminal (`preferredNotifChannel`: iterm2 is OSC 9, kitty OSC 99,
  // ghostty OSC 777), in 2.1.332's words: a permission dialog waits (said again some seconds after
  // it showed: a repeat); `Claude is waiting for your input` (a turn long over) tells nothing new.
  notification: (n) =>
    /\bClaude needs your permission\b/.test(`${n.title} ${n.body}`)
      ? { state: 'waiting', detail: 'needs your permission', repeat: true }
      : undefined,
  // Its menus move with the arrow keys and take Enter. Its number keys are not used: they reach the
  // input line instead of the menu when pressed as it appears (anthropics/claude-code#64629, #27924).
  menuKeys: (choice, highlighted) => arrowsTo(choice, highlighted),
  // Nor its Enter: pressed within a moment of the approval's drawing, it is lost (the menu stays; seen
  // in 2.1.332, 13 answers in 20 from the picker, its menu drawn 0.1-0.5 s before).
  menuStandMs: 600,
  // A job's session is the one it gave Claude Code (`--session-id`), or the one it resumed.
  jobRecordFile: (job, env) =>
    claudeTranscriptPath(claudeConfigDir(env), job.cwd, job.resumeSessionId ?? job.sessionId),
  // Its sessions elsewhere (another terminal, a background session): `<config>/sessions/<pid>.json`.
  sessions: {
    folder: (env) => path.join(claudeConfigDir(env), 'sessions'),
    file: /^\d+\.json$/,
    read: (v) => claudeSession(v),
  },
  // A background session (`kind: "bg"`) is attached as `claude agents` attaches it.
  attachCommand: (id) => ['claude', 'attach', id],
  // After the last prompt of the main conversation (not a sub-agent's sidechain), the assistant
  // message that ended the turn (stop_reason end_turn): the text of all its records (one per content
  // block, one message id).
  answerOf: (records) => answerOfLastPrompt(records, isClaudePrompt, claudeAnswerAt),
  // What it spends: each answer's usage in its transcript (one count per message id), its sub-agents'
  // transcripts beside it (`<session>/subagents/agent-*.jsonl`) counted in.
  usage: {
    reader: () => claudeUsage,
    prices: CLAUDE_PRICES,
    subAgentFiles: (file) => ({
      folder: path.join(file.replace(/\.jsonl$/, ''), 'subagents'),
      name: /^agent-[\w-]+\.jsonl$/,
    }),
  },
};

/**
 * What one transcript record says of spending: a prompt of the main conversation begins a turn; an
 * answer (`assistant`) has its message's usage, written again on each of its content lines (the same
 * message id: counted once, with its last counts). Its context is what the request sent: input, cache
 * reads and writes. A sidechain's (a sub-agent's) is counted in as a sub-agent's.
 */
export function claudeUsage(record: unknown): UsageReading | undefined {
  if (isClaudePrompt(record)) return { kind: 'prompt', at: isObj(record) ? timeOf(record.timestamp) : undefined };
  if (!isObj(record) || record.type !== 'assistant' || !isObj(record.message)) return undefined;
  const m = record.message;
  const u = m.usage;
  // `<synthetic>`: a message Claude Code wrote itself (an error, an interrupt), no request's.
  if (!isObj(u) || m.model === '<synthetic>') return undefined;
  const tokens = {
    inputTokens: countOf(u.input_tokens),
    outputTokens: countOf(u.output_tokens),
    cacheReadTokens: countOf(u.cache_read_input_tokens),
    cacheWriteTokens: countOf(u.cache_creation_input_tokens),
  };
  return {
    kind: 'message',
    tokens,
    key: strOf(m.id) ?? strOf(record.uuid),
    model: strOf(m.model),
    sub: record.isSidechain === true,
    at: timeOf(record.timestamp),
    contextTokens: tokens.inputTokens + tokens.cacheReadTokens + tokens.cacheWriteTokens,
  };
}

/**
 * A prompt the user (or a write into the terminal) gave: a `user` record of the main conversation with
 * text, not a tool's result.
 */
function isClaudePrompt(r: unknown): boolean {
  if (!isObj(r) || r.type !== 'user' || r.isSidechain === true || r.isMeta === true || !isObj(r.message)) return false;
  const content = r.message.content;
  if (typeof content === 'string') return true;
  return (
    Array.isArray(content) &&
    content.some((c) => isObj(c) && c.type === 'text') &&
    !content.some((c) => isObj(c) && c.type === 'tool_result')
  );
}

/** The text of the assistant message at `i` that ended a turn, joined over its records (one per content block). */
function claudeAnswerAt(records: readonly unknown[], i: number): string | undefined {
  const main = (r: unknown): r is { message: Record<string, unknown> } =>
    isObj(r) && r.type === 'assistant' && r.isSidechain !== true && isObj(r.message);
  const at = records[i];
  if (!main(at) || at.message.stop_reason !== 'end_turn') return undefined;
  const id = at.message.id;
  const text = records
    .filter((r) => main(r) && (id === undefined ? r === at : r.message.id === id))
    .flatMap((r) => (main(r) && Array.isArray(r.message.content) ? r.message.content : []))
    .filter(
      (c): c is { type: 'text'; text: string } =>
        isObj(c) && c.type === 'text' && typeof c.text === 'string' && c.text !== '',
    )
    .map((c) => c.text);
  return text.length > 0 ? text.join('\n\n') : undefined;
}

// ── Its records ─────────────────────────────────────────────────────────────────────────────

const SESSION_STATUS: Record<string, AgentState> = { idle: 'idle', busy: 'working', waiting: 'waiting' };

/**
 * Reads a Claude Code session file's JSON (`<config>/sessions/<pid>.json`); null when it is not one
 * (or has an unknown status). A background session's id (`kind: "bg"`) is what `claude attach` takes.
 */
export function claudeSession(value: unknown): SessionElsewhere | null {
  if (!isObj(value)) return null;
  const pid = value.pid;
  const sessionId = strOf(value.sessionId);
  const status = strOf(value.status);
  if (typeof pid !== 'number' || !sessionId || !status) return null;
  const state = SESSION_STATUS[status];
  if (!state) return null;
  const waitingFor = strOf(value.waitingFor);
  const bgId = value.kind === 'bg' ? strOf(value.jobId) : undefined;
  const name = strOf(value.name);
  return {
    pid,
    sessionId,
    cwd: strOf(value.cwd) ?? '',
    ...(name ? { name: name.slice(0, MAX_DETAIL) } : {}),
    ...(bgId && SHORT_ID.test(bgId) ? { attachId: bgId } : {}),
    signal: {
      state,
      source: 'session-file',
      detail: state === 'waiting' && waitingFor ? waitingFor : status,
      at: timeOf(value.statusUpdatedAt ?? value.updatedAt),
    },
  };
}

/** The text of a message's content: a string, or the text parts of an array. */
function contentText(message: unknown): string {
  if (!isObj(message)) return '';
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObj(part) && part.type === 'text' ? (strOf(part.text) ?? '') : '')).join(' ');
}

/** One record of a Claude Code transcript (`~/.claude/projects/<cwd>/<sessionId>.jsonl`). */
export function claudeTranscriptRecord(record: unknown): RecordSignal | null {
  if (!isObj(record)) return null;
  const at = timeOf(record.timestamp);
  const jsonl = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  if (record.type === 'system' && record.subtype === 'turn_duration') {
    const ms = typeof record.durationMs === 'number' ? record.durationMs : undefined;
    return jsonl('completed', ms === undefined ? 'turn ended' : `turn ended after ${(ms / 1000).toFixed(1)}s`);
  }
  if (record.type === 'assistant') {
    if (record.isApiErrorMessage === true) return jsonl('failed', clip(contentText(record.message)) || 'API error');
    return jsonl('working', 'answering');
  }
  if (record.type === 'user') {
    if (record.isMeta === true) return null;
    const text = contentText(record.message);
    if (text.startsWith('[Request interrupted by user')) return jsonl('failed', 'interrupted');
    return jsonl(
      'working',
      Array.isArray((record.message as Record<string, unknown> | undefined)?.content) ? 'running tools' : 'prompt',
    );
  }
  return null;
}

/**
 * A reader of one transcript, record after record: as claudeTranscriptRecord, but a turn's end
 * (`turn_duration`) says the start of the turn's answer, the text of its last message from the
 * model since the prompt (what a notice tells), else how long it took.
 */
export function claudeTranscriptReader(): (record: unknown) => RecordSignal | null {
  let answer = '';
  return (record) => {
    const signal = claudeTranscriptRecord(record);
    if (signal?.state === 'working' && signal.detail === 'prompt') answer = '';
    if (isObj(record) && record.type === 'assistant' && record.isApiErrorMessage !== true) {
      const text = contentText(record.message).trim();
      if (text !== '') answer = text;
    }
    if (signal?.state !== 'completed' || answer === '') return signal;
    return { ...signal, detail: clip(noControl(answer), MAX_DETAIL) };
  };
}

/** Claude Code's folder: `$CLAUDE_CONFIG_DIR`, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR || path.join(env.HOME || homedir(), '.claude');
}

/** `~/.claude/projects/<cwd with each character that is not a letter or digit turned into ->/<id>.jsonl`. */
export function claudeTranscriptPath(configDir: string, cwd: string, sessionId: string): string {
  return path.join(configDir, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'), `${sessionId}.jsonl`);
}

/**
 * Follows one Claude Code process's records: its session file (`sessions/<pid>.json`, live status)
 * and the transcript of the session it names (turn ends).
 */
export class ClaudeRecords extends RegistryRecords {
  constructor(
    configDir: string,
    pid: number,
    folders: FolderWatcher,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    usage?: UsageFeed,
  ) {
    const entryOf = (value: unknown): RegistryEntry | undefined => {
      const session = claudeSession(value);
      if (!session) return undefined;
      const { sessionId, cwd, signal } = session;
      return { sessionId, signal, ...(cwd ? { recordFile: claudeTranscriptPath(configDir, cwd, sessionId) } : {}) };
    };
    const registryFile = path.join(configDir, 'sessions', `${pid}.json`);
    super(
      { registryFile, entryOf, interpret: claudeTranscriptReader(), label: `claude pid ${pid}`, usage },
      folders,
      emit,
      log,
    );
  }
}
