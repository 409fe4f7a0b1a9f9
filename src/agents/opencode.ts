// OpenCode (1.18): its screens, its process, its session store.
// Everything MadoHub knows of it: see types.ts.
import { SHARED_RULES } from '../detect/common.js';
import type { AgentHealthNote, AgentModule } from './types.js';
import { homedir } from 'node:os';
import path from 'node:path';
import { processPlace } from '../proc/shared.js';
import type { RecordLog } from '../records/follow.js';
import type { FolderWatcher } from '../records/folders.js';
import type { UsageFeed } from '../records/usage-feed.js';
import { countOf } from '../usage/tally.js';
import type { PriceTable, UsageReading } from '../usage/types.js';
import { queryReadOnly, sqliteSupport } from '../records/sqlite.js';
import { isObj, strOf } from '../shared/checks.js';
import { clip, noControl } from '../shared/text.js';
import { INTERRUPTED } from '../shared/types.js';
import type { AgentState, RecordSignal } from '../shared/types.js';
import { listeningPorts } from '../proc/listening.js';
import { EventStream } from '../records/event-stream.js';

/** `▣  Build · <model> · 10.8s` (or `850ms`, `1m 5s`, `1h 2m`): the footer of a finished answer. */
const FOOTER_DONE = /^\s*▣\s+\S.*·\s*(?:\d+(?:\.\d+)?(?:ms|s|m|h)\s*)+$/;

/** OpenCode prices each step itself (its session's `cost`): no table of its own here. */
export const OPENCODE_PRICES: PriceTable = {};

/**
 * How OpenCode draws a session, as the agents of its family share it (Kilo Code CLI is a fork): the
 * rules of its rows, its prompt box and its answers. Each agent adds its own markers.
 */
export const OPENCODE_FAMILY_SCREEN: Pick<AgentModule['screen'], 'lines' | 'titles' | 'prompt' | 'answer'> = {
  lines: [
    // A permission (a shell command, an edit, an MCP server's tool) and a question to the user.
    {
      name: 'permission',
      state: 'waiting',
      test: /△ Permission required|Allow once\s+Allow always\s+Reject|↑↓ select\s+enter submit\s+esc dismiss/,
    },
    // Reject chosen: it asks what to do differently (`△ Reject permission`, `Tell <agent> what to do
    // differently`, `enter confirm  esc cancel`).
    {
      name: 'reject-reason',
      state: 'waiting',
      test: /△ Reject permission|Tell \S+ what to do differently/,
    },
    // 1.0's permission box (`Permission required to run this tool:`, `enter accept  a accept
    // always  d deny`) and its status bar's count (`◉ 1 Permission`), under a progress bar that
    // still turns.
    {
      name: 'permission-1.0',
      state: 'waiting',
      test: /Permission required to run this tool|enter accept\s+a accept always\s+d deny|◉ \d+ Permissions?\b/,
    },
    // Its progress bar (`⬝⬝■■ … esc interrupt`) and the hint; after one Escape, `esc again to
    // interrupt` while the answer still streams. The hint alone tells.
    { name: 'interrupt-hint', state: 'working', test: /esc (?:again to )?interrupt/ },
    // The footer of an answer: `▣  Build · <model> · 10.8s` when it finished, `· interrupted`
    // after two Escapes, no duration when it ended in an error (a box with the API's message).
    { name: 'footer-done', state: 'stopped', test: FOOTER_DONE, completion: true },
    { name: 'interrupted', state: 'failed', test: /^\s*▣\s+\S.*·\s*interrupted\s*$/, detail: 'interrupted' },
    { name: 'error', state: 'failed', test: /^\s*▣\s+[^·]*\S\s*·\s*[^·]*\S\s*$/, detail: 'error' },
    ...SHARED_RULES,
    { name: 'placeholder', state: 'idle', test: /Ask anything…|ctrl\+p commands/, hint: true },
  ],
  titles: [],
  // `┃  run the tests` in a box of its own (`┃` rows around it), then the answer five columns in or
  // another box (a tool's output, an error). The input box is alike but ends in `┃  Build · <model>`;
  // a prompt typed while it works shows `┃   QUEUED` under it.
  prompt: {
    line: /^\s*┃ {2}(?!.*\s·\s)(\S.*)$/,
    answered: /^ {5}\S|^\s*┃ {2}(?!.*\s·\s)(?!\s*QUEUED\s*$)\S/,
    // The placeholder, and the agent line of the input box in layouts without `·` (`Build  <model>`).
    not: /^Ask anything…|^(?:Build|Plan) {2}\S/,
    skip: /^\s*┃\s*$/,
    inputEnd: /^\s*┃ {2}\S.*\s·\s/,
  },
  // Below `┃  the prompt`, the answer indented five columns, then `▣  Build · model · 10.8s`.
  answer: {
    start: /^\s*┃\s+(\S.*)$/,
    end: FOOTER_DONE,
    item: /^ {5}(\S.*)$/,
    tool: /^ {5}[⚙✱→←]/,
    chrome: /^\s*[┃╹]|tab agents|esc interrupt/,
    indent: /^ {5}/,
  },
};

/** A job of OpenCode's family serves its events on a port of its host's choosing; its host follows them. */
const OPENCODE_JOB_STREAM: NonNullable<AgentModule['jobStream']> = {
  args: (port) => ['--port', String(port), '--hostname', '127.0.0.1'],
  path: '/event',
  greeting: (event) => isOpenCodeGreeting(event),
  reader: () => {
    const events = new OpenCodeEvents();
    return (event) => events.take(event);
  },
};

/** The records of an agent of OpenCode's family: its session store where `place` says, and its event stream. */
export const storeRecords =
  (place: (env: NodeJS.ProcessEnv) => StorePlace): AgentModule['records'] =>
  (ctx) =>
    new OpenCodeRecords(place(ctx.env), ctx.pid, ctx.folders, ctx.claims, ctx.emit, ctx.log, ctx.usage);

export const opencode: AgentModule = {
  health: () => storeHealth('OpenCode'),
  id: 'opencode',
  displayName: 'OpenCode',
  bracketedPaste: true,
  screen: {
    id: 'opencode',
    markers: [/tab agents\s+ctrl\+p commands/, /△ Permission required/, /^\s*▣\s+\S+\s+·/, /opencode/i],
    titleMarkers: [/\bopencode\b/i],
    ...OPENCODE_FAMILY_SCREEN,
  },
  process: { names: ['opencode'], script: /(?:^|\/)opencode(?:\.js)?$|opencode-ai\// },
  template: { description: 'OpenCode', command: ['opencode'], prompt: 'type' },
  env: { names: [], prefixes: ['OPENCODE_'] },
  // Its session store (`<data>/opencode/opencode.db`, SQLite), where this Node can read SQLite.
  // What it spends: its session's totals and cost in its store, its sub-agents' sessions counted in.
  usage: { reader: opencodeUsageReader, prices: OPENCODE_PRICES },
  records: storeRecords((env) => ({ dir: opencodeDataDir(env), db: OPENCODE_DB })),
  // A job serves its events on a port of its host's choosing; its host follows them.
  jobStream: OPENCODE_JOB_STREAM,
};

// ── Its records ─────────────────────────────────────────────────────────────────────────────

/** A row of OpenCode's `message` table (1.18): its id, when it was created, its `data` JSON parsed. */
export interface OpenCodeMessage {
  id: string;
  created: number;
  data: unknown;
}

/** What a message's `data` says: its role, its times, how it finished, its error. */
function opencodeData(m: OpenCodeMessage): {
  role?: string;
  completed?: number;
  finish?: string;
  error?: Record<string, unknown>;
} {
  if (!isObj(m.data)) return {};
  const time = isObj(m.data.time) ? m.data.time : {};
  return {
    role: strOf(m.data.role),
    completed: typeof time.completed === 'number' ? time.completed : undefined,
    finish: strOf(m.data.finish),
    error: isObj(m.data.error) ? m.data.error : undefined,
  };
}

/** The newest message of a role (the assistant's: the last step of the turn). */
export function opencodeNewest(
  messages: readonly OpenCodeMessage[],
  role: 'user' | 'assistant',
): OpenCodeMessage | undefined {
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
  const store = (state: AgentState, detail: string, at: number): RecordSignal => ({
    state,
    source: 'session-db',
    detail,
    at,
  });
  const user = newest('user');
  const step = newest('assistant');
  if (!step) return user ? store('working', 'prompt', user.created) : null;
  const s = opencodeData(step);
  if (user && user.created > step.created && s.completed !== undefined && user.created > s.completed) {
    return store('working', 'prompt', user.created);
  }
  if (s.error) {
    const name = strOf(s.error.name) ?? '';
    if (name === 'MessageAbortedError') return store('failed', 'interrupted', s.completed ?? step.created);
    const data = isObj(s.error.data) ? s.error.data : {};
    return store('failed', clip(strOf(data.message) ?? name) || 'error', s.completed ?? step.created);
  }
  if (s.completed === undefined) return store('working', 'answering', step.created);
  if (s.finish === 'tool-calls') return store('working', 'running tools', s.completed);
  return store('completed', clip(answer ?? '') || 'answered', s.completed);
}

/**
 * The store's health for an agent of OpenCode's family (`name`, as the user knows it): it is read with
 * node:sqlite (Node 22.13 and later); else its states are its screen's.
 */
export function storeHealth(name: string): AgentHealthNote[] {
  const support = sqliteSupport();
  if (support.ok) return [{ level: 'ok', text: `${name}'s session store: read with node:sqlite` }];
  return [
    {
      level: 'info',
      text: `${name}'s session store is not read: ${support.reason}; its states come from its screen only`,
    },
    { level: 'info', text: `  For ${name}, point \`node\` in setup() at Node 22.13 or newer (24 LTS)` },
  ];
}

/** A data folder as xdg-basedir gives it on every system: `$XDG_DATA_HOME/<name>`, else `~/.local/share/<name>`. */
export function xdgDataDir(name: string, env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME || path.join(env.HOME || homedir(), '.local', 'share');
  return path.join(base, name);
}

/** OpenCode's data folder. */
export const opencodeDataDir = (env: NodeJS.ProcessEnv = process.env): string => xdgDataDir('opencode', env);

/** Its session store (1.18): a SQLite database in WAL mode. */
export const OPENCODE_DB = 'opencode.db';

/** Where an agent of OpenCode's family keeps its session store: its data folder and the database's name. */
export interface StorePlace {
  dir: string;
  db: string;
}

/**
 * A change of the store is read after FIRST_READ_MS (OpenCode commits a step's rows one after the
 * other: they land together) and again STORE_READ_MS after it was heard (an event may come before the
 * commit it tells has ended: a last commit may come without an event of its own); changes heard
 * meanwhile are covered by those two reads. So, while OpenCode streams, two reads per STORE_READ_MS.
 */
export const FIRST_READ_MS = 10;
export const STORE_READ_MS = 60;
/** The latest messages of a session read; a message's `data` larger than this is not parsed. */
const MESSAGES = 20;
const MAX_DATA = 256 * 1024;

/** The claim of an OpenCode session among the terminals' claims (file paths). */
const claimOf = (sessionId: string): string => `opencode-session:${sessionId}`;

/** What one read of the store found. */
export interface StoreReading {
  sessionId?: string;
  signal?: RecordSignal | null;
  /** What the session spent, as its rows say (records for its usage reader, opencodeUsageReader). */
  usage?: unknown[];
  error?: string;
}

/**
 * One read of the store for the OpenCode process started at `startedAt` in `cwd` (`place`, used only when
 * no session is given): its session (the given one, else the earliest top-level session of that folder
 * created with the process or after it that no other terminal claimed: OpenCode creates it with the first
 * prompt), then that session's latest messages and its last step's text.
 */
export function readStore(
  db: string,
  place: { cwd: string; startedAt: number },
  sessionId: string | undefined,
  claimed: ReadonlySet<string>,
): StoreReading {
  const out: StoreReading = { sessionId };
  const result = queryReadOnly(db, (run) => {
    if (!out.sessionId) {
      const rows = run(
        'SELECT id FROM session WHERE directory = ? AND parent_id IS NULL AND time_created >= ? ORDER BY time_created, id LIMIT 50',
        place.cwd,
        place.startedAt - 1000,
      );
      out.sessionId = rows
        .map((r) => (r as { id?: unknown }).id)
        .find((id): id is string => typeof id === 'string' && !claimed.has(claimOf(id)));
    }
    if (!out.sessionId) return;
    const rows = run(
      'SELECT id, time_created AS created, CASE WHEN length(data) <= ? THEN data END AS data FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT ?',
      MAX_DATA,
      out.sessionId,
      MESSAGES,
    );
    const messages: OpenCodeMessage[] = [];
    for (const r of rows as { id?: unknown; created?: unknown; data?: unknown }[]) {
      if (typeof r.id !== 'string' || typeof r.created !== 'number') continue;
      let data: unknown;
      try {
        data = typeof r.data === 'string' ? JSON.parse(r.data) : undefined;
      } catch {
        data = undefined;
      }
      messages.push({ id: r.id, created: r.created, data });
    }
    out.usage = sessionTotals(run, out.sessionId, opencodeNewest(messages, 'user')?.id);
    const first = opencodeTurn(messages);
    // A finished answer says its text: the last text part of that step.
    if (first?.state === 'completed') {
      const step = opencodeNewest(messages, 'assistant');
      const parts = step
        ? run(
            'SELECT CASE WHEN length(data) <= ? THEN data END AS data FROM part WHERE message_id = ? ORDER BY id DESC LIMIT 20',
            MAX_DATA,
            step.id,
          )
        : [];
      out.signal = opencodeTurn(messages, lastText(parts));
    } else {
      out.signal = first;
    }
  });
  if (!result.ok) out.error = result.error;
  return out;
}

/**
 * What the session spent, as its rows say (its own, its sub-agents' sessions'), and its newest prompt:
 * records for opencodeUsageReader. A store whose session table has no totals (OpenCode before them)
 * says none: its state is read all the same.
 */
function sessionTotals(
  run: (sql: string, ...params: (string | number | null)[]) => unknown[],
  sessionId: string,
  prompt: string | undefined,
): unknown[] | undefined {
  try {
    return [
      ...run(`SELECT 'session' AS kind, ${TOTALS} FROM session WHERE id = ?`, sessionId),
      ...run(`SELECT 'sub-agents' AS kind, ${TOTALS}, COUNT(*) AS n FROM session WHERE parent_id = ?`, sessionId),
      { kind: 'prompt', id: prompt },
    ];
  } catch {
    return undefined;
  }
}

/** A session row's totals, as OpenCode sums each step's tokens and cost into them; its model. */
const TOTALS =
  'SUM(cost) AS cost, SUM(tokens_input) AS input, SUM(tokens_output) AS output, SUM(tokens_reasoning) AS reasoning, ' +
  'SUM(tokens_cache_read) AS cacheRead, SUM(tokens_cache_write) AS cacheWrite, MAX(model) AS model';

/**
 * A reader of what an OpenCode session spent, from its store (readStore's `usage`): the session's
 * own totals and its sub-agents' sessions' (OpenCode's cost, used as it is), and its newest prompt
 * (another one begins a turn).
 */
export function opencodeUsageReader(): (record: unknown) => UsageReading | undefined {
  let prompt: string | undefined;
  return (record) => {
    if (!isObj(record)) return undefined;
    if (record.kind === 'prompt') {
      const id = strOf(record.id);
      if (id === undefined || id === prompt) return undefined;
      const first = prompt === undefined;
      prompt = id;
      // The prompt in view when the store is first read is the current turn's: its tally goes on.
      return first ? undefined : { kind: 'prompt' };
    }
    if ((record.kind !== 'session' && record.kind !== 'sub-agents') || (record.kind === 'sub-agents' && !record.n))
      return undefined;
    let model: string | undefined;
    try {
      const m: unknown = typeof record.model === 'string' ? JSON.parse(record.model) : undefined;
      model = isObj(m) ? strOf(m.id) : undefined;
    } catch {
      model = undefined;
    }
    const cost = typeof record.cost === 'number' ? record.cost : undefined;
    return {
      kind: 'total',
      key: record.kind,
      sub: record.kind === 'sub-agents',
      model,
      tokens: {
        inputTokens: countOf(record.input),
        outputTokens: countOf(record.output) + countOf(record.reasoning),
        cacheReadTokens: countOf(record.cacheRead),
        cacheWriteTokens: countOf(record.cacheWrite),
      },
      ...(cost === undefined ? {} : { costUsd: cost }),
    };
  };
}

/** The text of the newest `text` part among rows of `part` (newest first). */
function lastText(rows: unknown[]): string | undefined {
  for (const r of rows) {
    const data = (r as { data?: unknown }).data;
    if (typeof data !== 'string') continue;
    try {
      const part = JSON.parse(data) as { type?: unknown; text?: unknown };
      if (part.type === 'text' && typeof part.text === 'string' && part.text.trim() !== '') return part.text;
    } catch {
      // Not JSON: not a text part.
    }
  }
  return undefined;
}

/**
 * Follows one OpenCode process's session in its store: the data folder is watched (inotify) and the
 * database read, read-only and briefly, when it or its WAL changes (see FIRST_READ_MS); a state is
 * told when it differs from the last one told.
 */
export class OpenCodeRecords {
  private unwatch?: () => void;
  private timer?: NodeJS.Timeout;
  private first?: NodeJS.Timeout;
  private told?: string;
  private stopped = false;
  private warned = false;
  private session?: string;
  private stream?: OpenCodeStream;

  /** The database and its write-ahead log, whose changes are read. */
  private readonly dbFiles: ReadonlySet<string>;

  constructor(
    private readonly store: StorePlace,
    readonly pid: number,
    private readonly folders: FolderWatcher,
    private readonly claims: Set<string>,
    private readonly emit: (signal: RecordSignal) => void,
    private readonly log: RecordLog,
    private readonly usage?: UsageFeed,
  ) {
    this.dbFiles = new Set([store.db, `${store.db}-wal`]);
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  /** The store is no file of records a route can read: OpenCode's answer is read from its screen. */
  get recordFile(): undefined {
    return undefined;
  }

  start(): void {
    // Its server's event stream, where it serves one (`--port`): on any Node, beside the store.
    this.stream = new OpenCodeStream(this.pid, this.emit, this.log);
    this.stream.start();
    const support = sqliteSupport();
    if (!support.ok) {
      this.log.debug(`opencode pid ${this.pid}: its store is not read: ${support.reason}`);
      return;
    }
    this.unwatch = this.folders.watch(this.store.dir, (file, event) => {
      if (event === 'ready' || this.dbFiles.has(path.basename(file))) this.poke();
    });
    this.poke();
  }

  stop(): void {
    this.stopped = true;
    this.usage?.stop();
    this.stream?.stop();
    this.unwatch?.();
    if (this.timer) clearTimeout(this.timer);
    if (this.first) clearTimeout(this.first);
    if (this.session) this.claims.delete(claimOf(this.session));
  }

  /** The store changed: it is read FIRST_READ_MS and STORE_READ_MS from now (see there). */
  poke(): void {
    if (this.stopped || !this.unwatch || this.timer) return;
    this.first = setTimeout(() => {
      this.first = undefined;
      this.read();
    }, FIRST_READ_MS);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.read();
    }, STORE_READ_MS);
  }

  private read(): void {
    if (this.stopped) return;
    // Where and when the process started matter only until its session is known (not on every read
    // while OpenCode streams).
    let place = { cwd: '', startedAt: 0 };
    if (!this.session) {
      const known = processPlace(this.pid);
      if (!known) return;
      place = known;
    }
    const reading = readStore(path.join(this.store.dir, this.store.db), place, this.session, this.claims);
    if (reading.error) {
      // No store yet, or busy: the next change reads it again.
      if (!this.warned) this.log.debug(`opencode pid ${this.pid}: store not read: ${reading.error}`);
      this.warned = true;
      return;
    }
    if (reading.sessionId && !this.session) {
      this.session = reading.sessionId;
      this.claims.add(claimOf(reading.sessionId));
      this.log.debug(`opencode pid ${this.pid}: session ${reading.sessionId}`);
    }
    if (this.usage && this.session && reading.usage) {
      const count = this.usage.open(claimOf(this.session));
      for (const record of reading.usage) count(record);
      this.usage.flush();
    }
    const signal = reading.signal;
    if (!signal) return;
    const key = `${signal.state}\u0000${signal.detail}\u0000${signal.at ?? ''}`;
    if (key === this.told) return;
    this.told = key;
    this.emit(signal);
  }
}

// ── Its server's event stream ───────────────────────────────────────────────────────────────

/** The event a genuine OpenCode server opens its stream with. */
export const isOpenCodeGreeting = (event: unknown): boolean => isObj(event) && event.type === 'server.connected';

/**
 * Reads OpenCode 1.18's event stream (`GET /event`) into states: `session.status` busy (or retry) is
 * Working, `permission.asked` and `question.asked` Waiting (with what is asked), their replies Working
 * again, `session.error` Failed (`MessageAbortedError`: interrupted), and the idle that ends a turn
 * Completed (Failed stays so through the idle after its error). A sub-agent's session (one created
 * with a parent) is not the terminal's; a session other than the one that worked last is followed
 * when it works (a new session in the same TUI).
 */
export class OpenCodeEvents {
  private readonly children = new Set<string>();
  private session: string | undefined;
  private failedTurn = false;
  private busy = false;

  take(event: unknown): RecordSignal | undefined {
    if (!isObj(event) || !isObj(event.properties)) return undefined;
    const p = event.properties;
    const type = strOf(event.type);
    const info = isObj(p.info) ? p.info : undefined;
    if (
      (type === 'session.created' || type === 'session.updated') &&
      info &&
      typeof info.parentID === 'string' &&
      typeof info.id === 'string'
    ) {
      if (this.children.size < 1000) this.children.add(info.id);
      return undefined;
    }
    const sid = strOf(p.sessionID);
    if (!sid || this.children.has(sid)) return undefined;
    const at = Date.now();
    const say = (state: AgentState, detail: string): RecordSignal => ({
      state,
      source: 'event-stream',
      detail: clip(noControl(detail)),
      at,
    });
    switch (type) {
      case 'session.status': {
        const status = isObj(p.status) ? strOf(p.status.type) : undefined;
        if (status === 'busy' || status === 'retry') {
          if (!this.busy) this.failedTurn = false;
          this.busy = true;
          this.session = sid;
          return say(
            'working',
            status === 'retry' ? `retrying: ${strOf(isObj(p.status) ? p.status.message : undefined) ?? ''}` : 'working',
          );
        }
        if (status === 'idle' && sid === this.session && this.busy) {
          this.busy = false;
          return this.failedTurn ? undefined : say('completed', 'answered');
        }
        return undefined;
      }
      case 'permission.asked': {
        this.session = sid;
        const patterns = Array.isArray(p.patterns) ? p.patterns.filter((x): x is string => typeof x === 'string') : [];
        return say('waiting', `${strOf(p.permission) ?? 'permission'}${patterns[0] ? `: ${patterns[0]}` : ''}`);
      }
      case 'question.asked': {
        this.session = sid;
        const first = Array.isArray(p.questions) && isObj(p.questions[0]) ? strOf(p.questions[0].question) : undefined;
        return say('waiting', first ?? 'a question');
      }
      case 'permission.replied':
      case 'question.replied':
      case 'question.rejected':
        return sid === this.session ? say('working', 'answered') : undefined;
      case 'session.error': {
        if (sid !== this.session) return undefined;
        this.failedTurn = true;
        const error = isObj(p.error) ? p.error : {};
        if (error.name === 'MessageAbortedError') return say('failed', INTERRUPTED);
        const data = isObj(error.data) ? error.data : {};
        return say('failed', strOf(data.message) ?? strOf(error.name) ?? 'error');
      }
      default:
        return undefined;
    }
  }
}

/** How often, and how long, a starting OpenCode is looked at for the port its server listens on. */
const PORT_LOOK_MS = 1000;
const PORT_LOOKS = 30;

/**
 * Follows the event stream of the OpenCode process `pid`, once its server listens (OpenCode 1.18's TUI
 * serves only when started with `--port`): looked for in /proc a few times while it starts.
 */
export class OpenCodeStream {
  private stream: EventStream | undefined;
  private timer: NodeJS.Timeout | undefined;
  private looks = 0;
  private stopped = false;
  private readonly events = new OpenCodeEvents();

  constructor(
    readonly pid: number,
    private readonly emit: (signal: RecordSignal) => void,
    private readonly log: RecordLog,
    private readonly ports: (pid: number) => number[] = listeningPorts,
  ) {}

  start(): void {
    if (this.stopped || this.stream) return;
    const port = this.ports(this.pid)[0];
    if (port !== undefined) {
      this.log.debug(`opencode pid ${this.pid}: its event stream on 127.0.0.1:${port}`);
      this.stream = new EventStream({
        port,
        path: '/event',
        greeting: isOpenCodeGreeting,
        onEvent: (event) => {
          const signal = this.events.take(event);
          if (signal) this.emit(signal);
        },
        log: (line) => this.log.debug(`opencode pid ${this.pid}: ${line}`),
      });
      this.stream.start();
      return;
    }
    if (++this.looks >= PORT_LOOKS) return;
    this.timer = setTimeout(() => this.start(), PORT_LOOK_MS);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stream?.stop();
  }
}
