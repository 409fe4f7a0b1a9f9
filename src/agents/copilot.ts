// GitHub Copilot CLI (`copilot`, @github/copilot 1.0): everything MadoHub knows of it (see types.ts) —
// its screens, its process, its job template and variables, its menus, and its records: the events
// of a session (`<home>/session-state/<session>/events.jsonl`), the session a process holds told by
// the `inuse.<pid>.lock` it keeps in that folder.
//
// Its screen (read from 1.0.102 against a local mock of its model API): the prompts it echoes
// (` ❯ say hello   18:33`, the time at the right), the answer items below (` ● You said…`, tool calls
// as ` $ Shell …`, ` ○ Create …`, ` ✗ …`), then a status line (` /proj [⎇ main]`) over an input box
// between two rules (`❯ draft` in column 0) and a footer: ` ← open sidebar · Interactive · …` when
// it waits for a prompt, ` ◉ Working esc esc edit prompt` while it works (the glyph animates). Its
// approvals and questions are boxes over the input box; its title is `GitHub Copilot`, then
// `<session name> - GitHub Copilot` (no spinner).
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { SHARED_RULES } from '../detect/common.js';
import { FoundFile } from '../records/follow.js';
import type { RecordLog } from '../records/follow.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { FolderWatcher } from '../records/folders.js';
import { isObj, strOf, timeOf } from '../shared/checks.js';
import { paced } from '../shared/debounce.js';
import { clip } from '../shared/text.js';
import type { AgentState, RecordSignal } from '../shared/types.js';
import { digitOf } from './menus.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import type { AgentModule } from './types.js';
import { answerOfLastPrompt } from './recorded-answer.js';

/**
 * Its approvals (`│ Do you want to run this command?`, `│ Do you want to create /p/new.txt?`) and the
 * folder trust dialog at start.
 */
const APPROVAL = /^│ Do you want to .{1,400}\?|^│ Do you trust the files in this folder\?/;

/** The footer of its menus (approvals, trust, /commands' lists). */
const MENU = /↑\/↓ to navigate · enter to select · esc to cancel/;

/** Its question (the `ask_user` tool): a form under `Copilot needs information.`. */
const QUESTION = /^ Copilot needs information\.|↑\/↓ select · enter accept · ctrl\+d decline/;

/** The footer while a turn runs: ` ◉ Working esc esc edit prompt` (the glyph animates), `esc again to edit prompt`. */
const WORKING = /^ [^\w\s] Working (?:esc|·)/;

/** The footer while it waits for a prompt (`Interactive` is its mode: `Plan`, `Autopilot` are others). */
const READY = /^ (?:← open sidebar · )?(?:Interactive|Plan|Autopilot) · |^ ctrl\+c again to exit\b/;

/** Copilot CLI bills premium requests, not tokens: no price here (a user's `prices` may give them). */
const COPILOT_PRICES: PriceTable = {};

export const copilot: AgentModule = {
  id: 'copilot',
  displayName: 'Copilot',
  bracketedPaste: true,
  screen: {
    id: 'copilot',
    markers: [
      /Copilot v\d+\.\d+\.\d+ uses AI\./,
      /^ ← open sidebar · /,
      WORKING,
      QUESTION,
      /No, and tell Copilot what to do differently/,
      /^│ Confirm folder trust\s+│$/,
    ],
    titleMarkers: [/(?:^| - )GitHub Copilot$/],
    lines: [
      { name: 'approval', state: 'waiting', test: APPROVAL },
      { name: 'menu', state: 'waiting', test: MENU, chrome: true, detail: 'a menu' },
      { name: 'question', state: 'waiting', test: QUESTION, detail: 'a question' },
      // An API that kept failing: ` ✗ Failed to get response from the AI model; retried 5 times …`.
      { name: 'api-failed', state: 'failed', test: /^ ✗ Failed to get response from the AI model\b/ },
      // Ctrl+C while it works, Esc on an approval: ` ● Operation cancelled by user`.
      { name: 'cancelled', state: 'failed', test: /^ ● Operation cancelled by user\b/, detail: 'interrupted' },
      { name: 'working', state: 'working', test: WORKING, chrome: true, detail: 'working' },
      ...SHARED_RULES,
      { name: 'ready', state: 'idle', test: READY, hint: true, detail: 'idle' },
    ],
    titles: [],
    // ` ❯ fix the parser   18:33` once sent (a scroll bar `┃` may stand at the right); a draft is the
    // input box's `❯ fix the parser` in column 0, above the rule that ends the box.
    prompt: {
      line: /^ ❯ (\S(?:.*\S)?)\s{2,}\d{1,2}:\d\d(?:\s?[AP]M)?(?:\s+┃)?$/,
      // Below it: an answer item, a tool call, or the status line (its folder) over the input box.
      answered: /^ [●$○◉◎✓✗✔] |^ [~/]/,
      // The scroll bar's rows, blank but for it.
      skip: /^\s*┃$/,
      draft: /^❯ (\S.*)$/,
      inputEnd: /^─{8,}$/,
    },
  },
  // `node …/@github/copilot/npm-loader.js`, which runs the native `…/copilot-linux-x64/copilot` (its comm
  // is `MainThread`).
  process: { names: ['copilot', 'copilot.exe'], script: /(?:^|\/)copilot(?:\.js)?$|@github\/copilot(?:-[\w-]+)?\// },
  template: {
    description: 'GitHub Copilot CLI',
    command: ['copilot'],
    prompt: 'type',
    resume: ['--resume', '{id}'],
    continue: ['--continue'],
    sessionId: ['--session-id', '{session}'],
  },
  // Its own (COPILOT_HOME, COPILOT_MODEL, COPILOT_PROVIDER_BASE_URL …) and the tokens it signs in with.
  env: { names: ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST'], prefixes: ['COPILOT_'] },
  // `❯ 1. Yes`: a choice's digit picks it at once (1.0.102, tried on its approvals).
  menuKeys: (choice) => digitOf(choice),
  records: (ctx) =>
    new CopilotRecords(copilotHome(ctx.env), ctx.pids, ctx.folders, ctx.claims, ctx.emit, ctx.log, ctx.usage),
  jobRecordFile: (job, env) => eventsFile(copilotHome(env), job.resumeSessionId ?? job.sessionId),
  // The last message of its model after the user's last prompt that has text.
  // What it spends: each request's `session.usage_record` in its events.
  usage: { reader: () => copilotUsage, prices: COPILOT_PRICES },
  answerOf: (records) =>
    answerOfLastPrompt(
      records,
      (r) => isObj(r) && r.type === 'user.message',
      (rs, i) => {
        const r = rs[i];
        const text = isObj(r) && r.type === 'assistant.message' && isObj(r.data) ? strOf(r.data.content) : undefined;
        return text && text.trim() !== '' ? text : undefined;
      },
    ),
};

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** Its folder: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.COPILOT_HOME || path.join(env.HOME || homedir(), '.copilot');
}

/** A session id as a folder name: one path segment. */
const SESSION = /^[A-Za-z0-9._-]{1,128}$/;

/** The events of a session, or undefined for an id that is no folder's name. */
export function eventsFile(home: string, session: string): string | undefined {
  return SESSION.test(session) && session !== '.' && session !== '..'
    ? path.join(home, 'session-state', session, 'events.jsonl')
    : undefined;
}

/**
 * One event of a session's `events.jsonl` (1.0.102), as a state: the user's prompt and the model's
 * turns are work; its message without tool requests ends the turn; a permission asked, and a
 * question (`ask_user`), wait for the user until answered; `abort` is an interrupt; `session.error`
 * an API that failed. `assistant.turn_end` is no news: a turn with tools has several.
 */
export function copilotEvent(record: unknown): RecordSignal | null {
  if (!isObj(record) || typeof record.type !== 'string') return null;
  const data = isObj(record.data) ? record.data : {};
  const at = timeOf(record.timestamp);
  const signal = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  switch (record.type) {
    case 'user.message':
      return signal('working', 'prompt');
    case 'assistant.turn_start':
    case 'permission.completed':
    case 'human_response.recorded':
    case 'tool.execution_complete':
      return signal('working', 'working');
    case 'assistant.message': {
      if (Array.isArray(data.toolRequests) && data.toolRequests.length > 0) return signal('working', 'running tools');
      const text = clip(strOf(data.content) ?? '');
      return text ? signal('completed', text) : signal('working', 'working');
    }
    case 'tool.execution_start':
      return data.toolName === 'ask_user'
        ? signal('waiting', 'a question')
        : signal('working', clip(`running ${strOf(data.toolName) ?? 'a tool'}`));
    case 'permission.requested': {
      const asked = isObj(data.permissionRequest) ? data.permissionRequest : {};
      return signal('waiting', clip(strOf(asked.fullCommandText) ?? strOf(asked.intention) ?? 'permission'));
    }
    case 'abort':
      return signal('failed', 'interrupted');
    case 'session.error':
      return signal('failed', clip(strOf(data.message) ?? 'error') || 'error');
    default:
      return null;
  }
}

/** The most session folders looked at for a process's lock. */
const MAX_SESSIONS = 2000;

/** The session folder a process holds (`inuse.<pid>.lock` in it), among the newest MAX_SESSIONS. */
export function sessionOfPids(home: string, pids: readonly number[]): string | undefined {
  const root = path.join(home, 'session-state');
  let names: string[];
  try {
    names = readdirSync(root).filter((n) => SESSION.test(n) && !n.startsWith('.'));
  } catch {
    return undefined;
  }
  for (const name of names.slice(-MAX_SESSIONS)) {
    if (pids.some((pid) => existsSync(path.join(root, name, `inuse.${pid}.lock`)))) return name;
  }
  return undefined;
}

/** How often the session folders are looked through for a process's lock while it is not found. */
const FIND_EVERY_MS = 1000;

/** Follows the events of the session a Copilot process holds; while none is found, waits in `session-state/`. */
export class CopilotRecords extends FoundFile {
  private watching = false;
  // Each screen pokes: the folders are read at most once a FIND_EVERY_MS, the last poke answered after it.
  private readonly pace = paced(() => this.look(), FIND_EVERY_MS);

  constructor(
    private readonly home: string,
    private readonly pids: readonly number[],
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    usage?: UsageFeed,
  ) {
    super(folders, claims, copilotEvent, emit, log, `copilot pids ${pids.slice(0, 4).join(',')}`, usage);
  }

  protected sessionIn(file: string): string | undefined {
    return path.basename(path.dirname(file));
  }

  protected find(): string | undefined {
    if (!this.watching) {
      this.watching = true;
      // A new session's folder shows in session-state/; its lock, in the folder, on the next screen's poke.
      this.wait(this.folders.watch(path.join(this.home, 'session-state'), () => this.look()));
      this.wait(() => this.pace.cancel());
    }
    if (!this.pace.due()) return undefined;
    const session = sessionOfPids(this.home, this.pids);
    const file = session ? eventsFile(this.home, session) : undefined;
    return file && !this.claims.has(file) ? file : undefined;
  }
}

/**
 * What one of Copilot CLI's session events says of spending: the user's message begins a turn; a
 * request's `session.usage_record` has its tokens (its `cost` is premium requests, not dollars; its
 * input counts the cached part: told apart here).
 */
export function copilotUsage(record: unknown): UsageReading | undefined {
  if (!isObj(record)) return undefined;
  const at = timeOf(record.timestamp);
  if (record.type === 'user.message') return { kind: 'prompt', at };
  if (record.type !== 'session.usage_record' || !isObj(record.data) || !isObj(record.data.usage)) return undefined;
  const u = record.data.usage;
  const accounting = isObj(u.accounting) ? u.accounting : {};
  const seq = accounting.sequence;
  return {
    kind: 'message',
    key: typeof seq === 'number' ? `${strOf(accounting.sourceSessionId) ?? ''}:${seq}` : strOf(record.id),
    model: strOf(u.model),
    at,
    // Its input counts the cache's reads and writes too (1.0.102: its session's own totals say so).
    tokens: {
      inputTokens: countOf(u.inputTokens) - countOf(u.cacheReadTokens) - countOf(u.cacheWriteTokens),
      outputTokens: countOf(u.outputTokens),
      cacheReadTokens: countOf(u.cacheReadTokens),
      cacheWriteTokens: countOf(u.cacheWriteTokens),
    },
    contextTokens: countOf(u.inputTokens) + countOf(u.cacheReadTokens) + countOf(u.cacheWriteTokens),
  };
}
