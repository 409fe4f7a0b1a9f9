// OpenAI Codex CLI (0.17x): everything MadoHub knows of it (see types.ts) — its screens, its
// process, its job template and variables, its menus, its records (the rollout its process writes),
// how a job's session is learnt from that rollout, and that the rollout holds a job's answers.
import { readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { BRAILLE, SHARED_RULES } from '../detect/common.js';
import { processPlace, processSource } from '../proc/shared.js';
import { FoundFile } from '../records/follow.js';
import type { RecordLog } from '../records/follow.js';
import type { UsageFeed } from '../records/usage-feed.js';
import type { FolderWatcher } from '../records/folders.js';
import { firstRecord } from '../records/tail.js';
import { isObj, strOf, timeOf } from '../shared/checks.js';
import { clip } from '../shared/text.js';
import type { AgentState, PushSignal, RecordSignal } from '../shared/types.js';
import type { TermNotification } from '../detect/osc.js';
import { digitOf } from './menus.js';
import { answerOfLastPrompt } from './recorded-answer.js';
import type { AgentModule } from './types.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';

/** Its dialogs (a model to switch to at start, …), which wait for a key. */
const DIALOG = /enter\/esc confirm · \^c quit/;
/** Its turn's end: `Worked for 10s • 19:35`, `Worked for 1m 05s`, `Worked for <1s` (a turn under a second). */
const WORKED_FOR = /^\s*(?:─\s*)?Worked for (?:<\s*)?(?:\d+\s*[hm]\s*)*\d+\s*s\b/;

/**
 * Its approvals (a command, an edit, an MCP tool) and its questions in Plan mode (`enter to submit
 * answer | esc to interrupt`: no work): Waiting, and, shown alone, still Codex's.
 */
const APPROVAL =
  /Would you like to (?:run the following command|make the following edits)\?|Press enter to confirm or esc to cancel|Allow the \S+ MCP server to run tool|enter to submit (?:answer )?\| esc to (?:cancel|interrupt)|\| enter to submit answer\s*$/;

/**
 * What one of Codex's desktop notifications says (0.171.0, as OSC 9): `Approval requested: <command>`
 * waits; any other is a turn's end, its answer's first words. (A turn read as ended that in fact asks,
 * an edit's approval in other words, is mended by the screen: its question is newer.)
 */
export function codexNotification(n: TermNotification): PushSignal | undefined {
  const text = (n.body || n.title).trim();
  if (!text) return undefined;
  const asked = /^Approval requested(?: by [^:]+)?:?\s*(.*)$/.exec(text);
  if (asked) return { state: 'waiting', detail: clip(asked[1] || 'approval') };
  return { state: 'completed', detail: clip(text) };
}

/** OpenAI's prices of the models Codex runs (US dollars per million tokens; it writes no cache). */
const CODEX_PRICES: PriceTable = {
  'gpt-5': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0, context: 272_000 },
  'gpt-5-codex': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0, context: 272_000 },
  'gpt-5.1': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0, context: 272_000 },
  'gpt-5.1-codex': { input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0, context: 272_000 },
  'gpt-5-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0, context: 272_000 },
  'gpt-5.1-codex-mini': { input: 0.25, output: 2, cacheRead: 0.025, cacheWrite: 0, context: 272_000 },
  'gpt-4.1': { input: 2, output: 8, cacheRead: 0.5, cacheWrite: 0, context: 1_047_576 },
};

export const codex: AgentModule = {
  id: 'codex',
  displayName: 'Codex',
  bracketedPaste: true,
  screen: {
    id: 'codex',
    markers: [
      /OpenAI Codex/,
      /codex>/,
      /openai\/codex/,
      /codex v[0-9]/,
      /> _ OpenAI Codex/,
      /codex --dangerously/i,
      /codex.*fast/i,
      /gpt-[0-9.]+ x?high/,
      /Ask Codex to do anything/,
      // Its own shapes in every version, so that a screen whose banner has scrolled away still names
      // it: the composer (`› …`), its working row, its turn's rule, its interrupt, its footer.
      /^› /,
      /^• Working \(\d/,
      /^─ Worked for /,
      /^■ /,
      /^\s{2}\d{1,3}% context left\s*$/,
      /tell Codex what to do differently/,
      DIALOG,
      // Its approvals' own words: a menu shown alone (after :MadoRestart) still names Codex.
      APPROVAL,
      // 0.171.0's lock on a session, and the keys it offers there.
      /This conversation is open in another app/,
      /^\s*r retry\s+f fork\s/,
    ],
    // Its name, or its `[ ! ] Action Required | <thread> | <folder>` title.
    titleMarkers: [/\bcodex\b/i, /^\s*\[ [!.] \] Action Required \|/],
    lines: [
      // 0.171.0's lock on a session another process holds (`🔒  This conversation is open in another
      // app … r to retry`, `Close it there and press R to continue here.`): it takes no prompt until
      // the person acts.
      {
        name: 'conversation-locked',
        state: 'waiting',
        test: /This conversation is open in another app/,
        detail: 'open in another app: close it there, or R continues here',
      },
      { name: 'interrupted', state: 'failed', test: /■ Conversation interrupted/, detail: 'interrupted' },
      // Any other `■ …` line ends a turn in an error (`■ {"error":{"message":…}}`, `■ stream disconnected…`).
      { name: 'error', state: 'failed', test: /^■ \S/ },
      { name: 'dialog', state: 'waiting', test: DIALOG },
      { name: 'approval', state: 'waiting', test: APPROVAL },
      // A confirmation over its busy line (`Confirm with Enter`, `… confirm with ⏎ Enter …`), a
      // `yes (y)` choice, a command's approval asked in two words: Waiting.
      { name: 'confirm', state: 'waiting', test: /\bConfirm with\b.{0,40}\bEnter\b/i, overWork: true },
      { name: 'yes-choice', state: 'waiting', test: /\byes \(y\)/i },
      { name: 'allow-command', state: 'waiting', test: /\bAllow command\?/ },
      // `Worked for 10s • 19:35`: Codex prints its done line without a glyph.
      {
        name: 'worked-for',
        state: 'stopped',
        test: WORKED_FOR,
        completion: true,
      },
      ...SHARED_RULES,
      { name: 'placeholder', state: 'idle', test: /› Ask Codex to do anything/, hint: true },
    ],
    titles: [
      // `[ ! ] Action Required`, blinking to `[ . ] Action Required` (0.171).
      {
        name: 'title-action-required',
        state: 'waiting',
        test: /\[ [!.] \] Action Required/,
        detail: 'action required',
      },
      { name: 'title-spinner', state: 'working', test: new RegExp(`^\\s*${BRAILLE}`) },
    ],
    // `› fix the failing parser test`, then `•` or `◦` rows.
    prompt: { line: /^› (\S.*)$/, answered: /^\s*[•◦└■]/, not: /^Ask Codex to do anything$/ },
    // `• text` items, `• Ran npm test` tool calls with `  └ …` under them; `Worked for 6s` ends the turn.
    // Its footer (0.1xx): `100% context left`.
    context: { line: /\b(\d{1,3})% context left\b/, left: true },
    answer: {
      end: WORKED_FOR,
      item: /^• (.*)$/,
      tool: /^• (?:Ran|Running|Explored|Exploring|Edited|Read|Searched|Called|Updated|Added|Deleted|Waited|Applied)\b/,
      chrome: /^› |^\s*[←?] for |^\s*⚠|^\s*⏎ send|^• Working \(|\S+ default · /,
      indent: /^ {2}/,
    },
  },
  // The native `codex` (the launcher's child), or node running `…/bin/codex(.js)`.
  process: {
    names: ['codex', 'codex.exe', 'codex-linux-x64', 'codex-x86_64-unknown-linux-musl'],
    script: /(?:^|\/)codex(?:\.js)?$|@openai\/codex\//,
  },
  template: {
    description: 'Codex',
    command: ['codex'],
    prompt: 'arg',
    resume: ['resume', '{id}'],
    continue: ['resume', '--last'],
  },
  env: { names: ['RUST_LOG'], prefixes: ['CODEX_', 'OPENAI_'] },
  // `› 1. Yes, proceed (y)`: a choice's digit picks it at once (0.171.0, tried on its approvals).
  menuKeys: (choice) => digitOf(choice),
  // Its rollout (`<home>/sessions/YYYY/MM/DD/rollout-*.jsonl`), held open by one of the terminal's processes.
  records: (ctx) =>
    new CodexRecords(
      codexHome(ctx.env),
      ctx.pid,
      ctx.pids,
      ctx.folders,
      ctx.claims,
      ctx.emit,
      ctx.log,
      resumedSession(ctx.argv ?? []),
      ctx.usage,
    ),
  // Its desktop notifications as OSC 9 (its config's `tui.notifications` and `notification_method`).
  notification: codexNotification,
  // Not for a resumed session: 0.171.0 keeps a session in its app-server daemon after the TUI that
  // ran it is gone, and a TUI given `-c` overrides runs a server of its own, which that daemon's lock
  // on the session refuses ("This conversation is open in another app"). Its rollout tells instead.
  jobNotifications: { args: ['-c', 'tui.notifications=true', '-c', 'tui.notification_method="osc9"'], onResume: false },
  // A job cannot give Codex a session id: its host learns it from the rollout the job's process
  // writes (held open, or the first of its folder after its start); that rollout holds its answers.
  learnJobSession: (proc, env) => {
    const file = findRollout(codexHome(env), proc, new Set());
    const id = file ? readMeta(file)?.sessionId : undefined;
    return file && id ? { id, file } : undefined;
  },
  jobRecordFile: (job, env) =>
    job.resumeSessionId ? rolloutOfSession(codexHome(env), job.resumeSessionId) : undefined,
  // What it spends: its rollout's running totals (`token_count`), its context as its footer counts it.
  usage: { reader: codexUsageReader, prices: CODEX_PRICES },
  // The last turn's final message, as its `task_complete` event records it, after the turn's `task_started`.
  answerOf: (records) =>
    answerOfLastPrompt(
      records,
      (r) => codexEvent(r)?.type === 'task_started',
      (rs, i) => {
        const p = codexEvent(rs[i]);
        return p?.type === 'task_complete' && typeof p.last_agent_message === 'string' && p.last_agent_message !== ''
          ? p.last_agent_message
          : undefined;
      },
    ),
};

/** The tokens Codex keeps for itself in any context (its `BASELINE_TOKENS`): its per cent leaves them out. */
const CODEX_BASELINE_TOKENS = 12_000;

/**
 * How full Codex's context is, as its footer's `NN% context left` counts it: the last request's
 * tokens against the window, both without its baseline.
 */
export function codexContextUsedPct(lastTotal: number, window: number): number | undefined {
  if (!(Number.isFinite(lastTotal) && Number.isFinite(window)) || window <= CODEX_BASELINE_TOKENS) return undefined;
  const effective = window - CODEX_BASELINE_TOKENS;
  const used = Math.max(0, lastTotal - CODEX_BASELINE_TOKENS);
  const left = Math.round((Math.max(0, effective - used) / effective) * 100);
  return 100 - Math.min(100, Math.max(0, left));
}

/**
 * A reader of one rollout's spending: a turn's start (`task_started`) begins a turn; each
 * `token_count` event carries the session's running totals (its input counts the cached part too,
 * told apart here), the last request's, and the context window; `turn_context` names the model.
 */
export function codexUsageReader(): (record: unknown) => UsageReading | undefined {
  let model: string | undefined;
  return (record) => {
    if (isObj(record) && record.type === 'turn_context' && isObj(record.payload)) {
      model = strOf(record.payload.model) ?? model;
      return undefined;
    }
    const p = codexEvent(record);
    const at = isObj(record) ? timeOf(record.timestamp) : undefined;
    if (p?.type === 'task_started' || p?.type === 'user_message') return { kind: 'prompt', at };
    if (p?.type !== 'token_count' || !isObj(p.info) || !isObj(p.info.total_token_usage)) return undefined;
    const total = p.info.total_token_usage;
    const cached = countOf(total.cached_input_tokens);
    const last = isObj(p.info.last_token_usage) ? countOf(p.info.last_token_usage.total_tokens) : Number.NaN;
    const window = countOf(p.info.model_context_window);
    const pct = codexContextUsedPct(last, window);
    return {
      kind: 'total',
      tokens: {
        inputTokens: countOf(total.input_tokens) - cached,
        outputTokens: countOf(total.output_tokens),
        cacheReadTokens: cached,
        cacheWriteTokens: countOf(total.cache_write_input_tokens),
      },
      model,
      at,
      ...(pct === undefined ? {} : { contextUsedPct: pct }),
    };
  };
}

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** The payload of an `event_msg` record, or undefined. */
function codexEvent(r: unknown): Record<string, unknown> | undefined {
  return isObj(r) && r.type === 'event_msg' && isObj(r.payload) ? r.payload : undefined;
}

/** The `session_meta` record that opens a Codex rollout. */
export interface CodexMeta {
  sessionId: string;
  cwd: string;
  startedAt?: number;
}

export function codexMeta(record: unknown): CodexMeta | null {
  if (!isObj(record) || record.type !== 'session_meta' || !isObj(record.payload)) return null;
  const p = record.payload;
  const sessionId = strOf(p.id) ?? strOf(p.session_id);
  if (!sessionId) return null;
  return { sessionId, cwd: strOf(p.cwd) ?? '', startedAt: timeOf(p.timestamp ?? record.timestamp) };
}

/** One record of a Codex rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`). */
export function codexRolloutRecord(record: unknown): RecordSignal | null {
  if (!isObj(record) || record.type !== 'event_msg' || !isObj(record.payload)) return null;
  const p = record.payload;
  const at = timeOf(record.timestamp);
  const jsonl = (state: AgentState, detail: string): RecordSignal => ({ state, source: 'jsonl-watcher', detail, at });
  switch (p.type) {
    case 'task_started':
      return jsonl('working', 'task started');
    case 'task_complete':
      // 0.171 ends a turn that failed (the API refused it) with `task_complete` and its `error`.
      if (isObj(p.error)) return jsonl('failed', clip(strOf(p.error.message) ?? '') || 'error');
      return jsonl('completed', clip(strOf(p.last_agent_message) ?? '') || 'task complete');
    case 'turn_aborted':
      // An interrupt reads as every agent's does (`interrupted`); another reason is said as it is.
      return jsonl(
        'failed',
        strOf(p.reason) === 'interrupted' ? 'interrupted' : `aborted: ${strOf(p.reason) ?? 'unknown reason'}`,
      );
    case 'error':
      return jsonl('failed', clip(strOf(p.message) ?? 'error'));
    default:
      return null;
  }
}

/** Codex's folder: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.CODEX_HOME || path.join(env.HOME || homedir(), '.codex');
}

const ROLLOUT = /\/rollout-[^/]*\.jsonl$/;

/** The most folder entries looked at for a session's rollout. */
const MAX_ROLLOUT_LOOKS = 5000;

/**
 * The rollout of Codex session `sessionId` (`sessions/YYYY/MM/DD/rollout-…-<id>.jsonl`), newest days
 * first, looking at a bounded number of entries; undefined when not found.
 */
export function rolloutOfSession(home: string, sessionId: string): string | undefined {
  if (!/^[0-9a-f-]{8,64}$/i.test(sessionId)) return undefined;
  let looks = 0;
  const list = (dir: string): string[] => {
    try {
      const names = readdirSync(dir).sort().reverse();
      looks += names.length;
      return names;
    } catch {
      return [];
    }
  };
  const root = path.join(home, 'sessions');
  for (const y of list(root)) {
    for (const m of list(path.join(root, y))) {
      for (const d of list(path.join(root, y, m))) {
        const day = path.join(root, y, m, d);
        const hit = list(day).find((f) => f.endsWith(`-${sessionId}.jsonl`) && f.startsWith('rollout-'));
        if (hit) return path.join(day, hit);
        if (looks > MAX_ROLLOUT_LOOKS) return undefined;
      }
    }
  }
  return undefined;
}

/** `sessions/YYYY/MM/DD` of a local date. */
export function dayFolder(home: string, at: number): string {
  const d = new Date(at);
  const two = (n: number): string => String(n).padStart(2, '0');
  return path.join(home, 'sessions', String(d.getFullYear()), two(d.getMonth() + 1), two(d.getDate()));
}

/** A rollout's session_meta (its first line). */
export function readMeta(file: string): CodexMeta | undefined {
  return firstRecord(file, codexMeta);
}

/** What is known of the Codex process whose rollout is wanted. */
export interface CodexProcess {
  /** The processes of the terminal from Codex down (their open files are looked at first). */
  pids: readonly number[];
  cwd: string;
  startedAt: number;
}

/**
 * Which rollout belongs to a Codex process: one it holds open; else the earliest rollout of its day
 * folders whose session_meta names its folder and starts after it, and that no other terminal
 * claimed (two Codex sessions in one folder must not be crossed).
 */
export function findRollout(
  home: string,
  proc: CodexProcess,
  claimed: ReadonlySet<string>,
  resumed?: string,
): string | undefined {
  const sessions = path.join(home, 'sessions') + path.sep;
  for (const pid of proc.pids) {
    const open = processSource()
      .openFiles(pid)
      .find((f) => f.startsWith(sessions) && ROLLOUT.test(f));
    if (open) return open;
  }
  // A session it resumes goes on in its own rollout, older than the process (0.171.0's app-server
  // daemon holds it open, no process of the terminal).
  if (resumed !== undefined) {
    const file = rolloutOf(home, resumed);
    if (file && !claimed.has(file)) return file;
  }
  let best: { file: string; startedAt: number } | undefined;
  const days = new Set([dayFolder(home, proc.startedAt), dayFolder(home, Date.now())]);
  for (const dir of days) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const file = path.join(dir, name);
      if (!ROLLOUT.test(file) || claimed.has(file)) continue;
      const meta = readMeta(file);
      if (!meta || meta.cwd !== proc.cwd || meta.startedAt === undefined) continue;
      // The session starts with the process or after it (a second of slack for the clocks).
      if (meta.startedAt < proc.startedAt - 1000) continue;
      if (!best || meta.startedAt < best.startedAt) best = { file, startedAt: meta.startedAt };
    }
  }
  return best?.file;
}

/** The session a Codex process resumes (`codex [options] resume ID`), or undefined. */
export function resumedSession(argv: readonly string[]): string | undefined {
  const at = argv.indexOf('resume');
  const id = at >= 0 ? argv[at + 1] : undefined;
  return id !== undefined && SESSION_UUID.test(id) ? id : undefined;
}

const SESSION_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The most day folders looked through for a resumed session's rollout, newest first. */
const MAX_DAYS_LOOKED = 400;

/** The rollout of session `id` (`sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`), newest day first, or undefined. */
export function rolloutOf(home: string, id: string): string | undefined {
  const under = (dir: string): string[] => {
    try {
      return readdirSync(dir)
        .filter((n) => /^\d{2,4}$/.test(n))
        .sort()
        .reverse();
    } catch {
      return [];
    }
  };
  const root = path.join(home, 'sessions');
  let looked = 0;
  for (const y of under(root)) {
    for (const m of under(path.join(root, y))) {
      for (const d of under(path.join(root, y, m))) {
        if (++looked > MAX_DAYS_LOOKED) return undefined;
        const dir = path.join(root, y, m, d);
        let names: string[];
        try {
          names = readdirSync(dir);
        } catch {
          continue;
        }
        const name = names.find((n) => n.endsWith(`-${id}.jsonl`) && n.startsWith('rollout-'));
        if (name) return path.join(dir, name);
      }
    }
  }
  return undefined;
}

/** Follows one Codex process's rollout; while it is not found, waits for it in its day folders. */
export class CodexRecords extends FoundFile {
  private waiting = false;

  constructor(
    private readonly home: string,
    readonly pid: number,
    private readonly pids: readonly number[],
    folders: FolderWatcher,
    claims: Set<string>,
    emit: (signal: RecordSignal) => void,
    log: RecordLog,
    /** The session the process resumes, whose rollout it goes on in. */
    private readonly resumed?: string,
    usage?: UsageFeed,
  ) {
    super(folders, claims, codexRolloutRecord, emit, log, `codex pid ${pid}`, usage);
  }

  protected sessionIn(file: string): string | undefined {
    return readMeta(file)?.sessionId;
  }

  protected find(): string | undefined {
    const place = processPlace(this.pid);
    const file = place ? findRollout(this.home, { pids: this.pids, ...place }, this.claims, this.resumed) : undefined;
    if (!file && !this.waiting) {
      this.waiting = true;
      const days = new Set([
        dayFolder(this.home, processSource().startMs(this.pid) ?? Date.now()),
        dayFolder(this.home, Date.now()),
      ]);
      for (const dir of days) {
        this.wait(
          this.folders.watch(dir, (changed, event) => {
            if (event === 'ready' || (event === 'add' && ROLLOUT.test(changed))) this.look();
          }),
        );
      }
    }
    return file;
  }
}
