// Reading the agents' own records: Claude Code's session file and transcript, Codex's rollout,
// Gemini CLI's chat, OpenCode's session store.
// Pure: each function takes one parsed record and says what it means, or null when it means nothing
// for the state. Finding and tailing the files is src/records/.
import type { AgentState, StateSource } from './types.js';

/** What one record says about a terminal's state. */
export interface RecordSignal {
  state: AgentState;
  source: Extract<StateSource, 'session-file' | 'jsonl-watcher' | 'session-db'>;
  detail: string;
  /** When the record was written (epoch ms), when it says so. */
  at?: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function clip(text: string, max = 120): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function timeOf(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  const s = str(v);
  if (s === undefined) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}

/** `~/.claude/sessions/<pid>.json` of Claude Code 2.x. */
export interface ClaudeSession {
  pid: number;
  sessionId: string;
  cwd: string;
  signal: RecordSignal;
  /** The session's name, when it has one. */
  name?: string;
  /** A background session's id (`kind: "bg"`), which `claude attach` takes. */
  bgId?: string;
}

const SESSION_STATUS: Record<string, AgentState> = { idle: 'idle', busy: 'working', waiting: 'waiting' };

/** Reads a Claude Code session file's JSON; null when it is not one (or has an unknown status). */
export function claudeSession(value: unknown): ClaudeSession | null {
  if (!isObject(value)) return null;
  const pid = value.pid;
  const sessionId = str(value.sessionId);
  const status = str(value.status);
  if (typeof pid !== 'number' || !sessionId || !status) return null;
  const state = SESSION_STATUS[status];
  if (!state) return null;
  const waitingFor = str(value.waitingFor);
  const bgId = value.kind === 'bg' ? str(value.jobId) : undefined;
  const name = str(value.name);
  return {
    pid,
    sessionId,
    cwd: str(value.cwd) ?? '',
    ...(name ? { name: name.slice(0, 120) } : {}),
    ...(bgId && /^[0-9a-f]{8}$/.test(bgId) ? { bgId } : {}),
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
  if (!isObject(message)) return '';
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (isObject(part) && part.type === 'text' ? (str(part.text) ?? '') : ''))
    .join(' ');
}

/** One record of a Claude Code transcript (`~/.claude/projects/<cwd>/<sessionId>.jsonl`). */
export function claudeTranscriptRecord(record: unknown): RecordSignal | null {
  if (!isObject(record)) return null;
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
    return jsonl('working', Array.isArray((record.message as Json | undefined)?.content) ? 'running tools' : 'prompt');
  }
  return null;
}

/** The `session_meta` record that opens a Codex rollout. */
export interface CodexMeta {
  sessionId: string;
  cwd: string;
  startedAt?: number;
}

export function codexMeta(record: unknown): CodexMeta | null {
  if (!isObject(record) || record.type !== 'session_meta' || !isObject(record.payload)) return null;
  const p = record.payload;
  const sessionId = str(p.id) ?? str(p.session_id);
  if (!sessionId) return null;
  return { sessionId, cwd: str(p.cwd) ?? '', startedAt: timeOf(p.timestamp ?? record.timestamp) };
}

/** One record of a Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`). */
export function codexRolloutRecord(record: unknown): RecordSignal | null {
  if (!isObject(record) || record.type !== 'event_msg' || !isObject(record.payload)) return null;
  const p = record.payload;
  const at = timeOf(record.timestamp);
  const jsonl = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  switch (p.type) {
    case 'task_started':
      return jsonl('working', 'task started');
    case 'task_complete':
      // 0.171 ends a turn that failed (the API refused it) with `task_complete` and its `error`.
      if (isObject(p.error)) return jsonl('failed', clip(str(p.error.message) ?? '') || 'error');
      return jsonl('completed', clip(str(p.last_agent_message) ?? '') || 'task complete');
    case 'turn_aborted':
      // An interrupt reads as every agent's does (`interrupted`); another reason is said as it is.
      return jsonl('failed', str(p.reason) === 'interrupted' ? 'interrupted' : `aborted: ${str(p.reason) ?? 'unknown reason'}`);
    case 'error':
      return jsonl('failed', clip(str(p.message) ?? 'error'));
    default:
      return null;
  }
}

/** The header line that opens a Gemini CLI chat (`<gemini home>/tmp/<project>/chats/session-*.jsonl`). */
export interface GeminiChatHeader {
  sessionId: string;
  startedAt?: number;
  /** `main`, or `subagent` for a sub-agent's own chat. */
  kind: string;
}

export function geminiChatHeader(record: unknown): GeminiChatHeader | null {
  if (!isObject(record)) return null;
  const sessionId = str(record.sessionId);
  if (!sessionId || typeof record.projectHash !== 'string') return null;
  return { sessionId, startedAt: timeOf(record.startTime), kind: str(record.kind) ?? 'main' };
}

/** A Gemini chat message's content: a string, or the text parts of an array (function parts have none). */
function geminiText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part) => (isObject(part) ? (str(part.text) ?? '') : '')).join(' ');
}

/** A Gemini chat message that is a prompt of the user's (not the tools' results sent back as `user`). */
export function isGeminiPrompt(record: unknown): boolean {
  if (!isObject(record) || record.type !== 'user') return false;
  const content = record.content;
  return !(Array.isArray(content) && content.some((part) => isObject(part) && isObject(part.functionResponse)));
}

/**
 * One record of a Gemini CLI 0.61 chat. Gemini appends a message when it is complete: the user's
 * prompt (`user`), the model's response once it has streamed (`gemini`; empty when it only calls a
 * tool, written again with `toolCalls` once they ran), the tools' results sent back (`user` with
 * function responses), and notes (`info`: `Request cancelled.` after an Escape; `error`: an API
 * error). `$set` lines update the header or rewrite the history: no news of the turn.
 * (A response with both text and a tool call reads as Completed until the tool's record comes.)
 */
export function geminiChatRecord(record: unknown): RecordSignal | null {
  if (!isObject(record) || '$set' in record) return null;
  const at = timeOf(record.timestamp);
  const jsonl = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  switch (record.type) {
    case 'user':
      return jsonl('working', isGeminiPrompt(record) ? 'prompt' : 'running tools');
    case 'gemini': {
      if (Array.isArray(record.toolCalls) && record.toolCalls.length > 0) return jsonl('working', 'running tools');
      const text = clip(geminiText(record.content));
      return text ? jsonl('completed', text) : jsonl('working', 'calling a tool');
    }
    case 'info':
      return geminiText(record.content).trim() === 'Request cancelled.' ? jsonl('failed', 'interrupted') : null;
    case 'error':
      return jsonl('failed', clip(geminiText(record.content)) || 'error');
    default:
      return null;
  }
}

/** A row of OpenCode's `message` table (1.18): its id, when it was created, its `data` JSON parsed. */
export interface OpenCodeMessage {
  id: string;
  created: number;
  data: unknown;
}

/** What a message's `data` says: its role, its times, how it finished, its error. */
function opencodeData(m: OpenCodeMessage): { role?: string; completed?: number; finish?: string; error?: Json } {
  if (!isObject(m.data)) return {};
  const time = isObject(m.data.time) ? m.data.time : {};
  return {
    role: str(m.data.role),
    completed: typeof time.completed === 'number' ? time.completed : undefined,
    finish: str(m.data.finish),
    error: isObject(m.data.error) ? m.data.error : undefined,
  };
}

/** The newest message of a role (the assistant's: the last step of the turn). */
export function opencodeNewest(messages: readonly OpenCodeMessage[], role: 'user' | 'assistant'): OpenCodeMessage | undefined {
  let best: OpenCodeMessage | undefined;
  for (const m of messages) {
    if (opencodeData(m).role !== role) continue;
    if (!best || m.created > best.created || (m.created === best.created && m.id > best.id)) best = m;
  }
  return best;
}

/**
 * The state of an OpenCode session from its latest messages (any order). A turn is the user's message
 * and the assistant's steps that answer it: a step not completed yet is Working, one that finished
 * to call tools (`finish: tool-calls`) is Working too (the next step follows), one that stopped is
 * Completed (`answer`: its text, the detail), an error is Failed (`MessageAbortedError`: two Escapes,
 * `interrupted`). A user's message after the last step is a new turn (Working), unless it came while
 * that step ran and the step then ended (a prompt queued and dropped with an interrupt).
 */
export function opencodeTurn(messages: readonly OpenCodeMessage[], answer?: string): RecordSignal | null {
  const newest = (role: 'user' | 'assistant'): OpenCodeMessage | undefined => opencodeNewest(messages, role);
  const store = (state: AgentState, detail: string, at: number): RecordSignal => ({ state, source: 'session-db', detail, at });
  const user = newest('user');
  const step = newest('assistant');
  if (!step) return user ? store('working', 'prompt', user.created) : null;
  const s = opencodeData(step);
  if (user && user.created > step.created && s.completed !== undefined && user.created > s.completed) {
    return store('working', 'prompt', user.created);
  }
  if (s.error) {
    const name = str(s.error.name) ?? '';
    if (name === 'MessageAbortedError') return store('failed', 'interrupted', s.completed ?? step.created);
    const data = isObject(s.error.data) ? s.error.data : {};
    return store('failed', clip(str(data.message) ?? name) || 'error', s.completed ?? step.created);
  }
  if (s.completed === undefined) return store('working', 'answering', step.created);
  if (s.finish === 'tool-calls') return store('working', 'running tools', s.completed);
  return store('completed', clip(answer ?? '') || 'answered', s.completed);
}
