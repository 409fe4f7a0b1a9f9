import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  Attention,
  DEFAULT_ATTENTION,
  inQuiet,
  minutesOf,
  QUESTION_MS,
  SETTLE_MS,
} from '../../../src/fleet/attention.js';
import type { Notice } from '../../../src/fleet/attention.js';
import type { EntryFields, FleetEntry } from '../../../src/fleet/entry.js';
import { UNPLACED } from '../../../src/fleet/entry.js';
import type { AgentState } from '../../../src/shared/types.js';

/** The fields every kind fills alike (not where it runs). */
type Common = Omit<EntryFields, 'buf' | 'short' | 'host' | 'pid' | 'peerBuf' | 'tty' | 'exit' | 'shows' | 'server'>;

/** A terminal's entry (`term:N`) or a job's (`job:ID`), with `more` of the fields every kind has. */
const entry = (
  id: string,
  state: AgentState,
  more: Partial<Common> & { host?: string; short?: string } = {},
): FleetEntry => {
  const fields = {
    id,
    name: `codex ${id}`,
    named: false,
    intent: '',
    agent: 'codex',
    state,
    source: 'pty-scrape' as const,
    confirmed: false,
    since: 0,
    cwd: '/w',
    detail: 'the last line',
    // A wait shows its question (as a terminal's screen does), unless a test says otherwise.
    needs: state === 'waiting' ? { question: 'Proceed?', options: ['Yes', 'No'] } : null,
    where: id.startsWith('job:') ? 'job' : `buffer ${id.slice(5)}`,
    pinned: false,
    order: 0,
    pending: '' as const,
    server: '' as const,
    attach: [],
    ...UNPLACED,
    ...more,
  };
  return id.startsWith('job:')
    ? { ...fields, kind: 'job', short: more.short ?? id.slice(4), host: more.host ?? '', exit: null, shows: '' }
    : { ...fields, kind: 'terminal', buf: Number(id.slice(5)), short: '', host: '' };
};

describe('Attention', () => {
  let told: Notice[];
  let a: Attention;
  let minutes = 12 * 60;
  beforeEach(() => {
    vi.useFakeTimers();
    told = [];
    minutes = 12 * 60;
    a = new Attention(
      {
        agentName: () => 'Codex',
        howTo: (i) => (i.kind === 'job' ? `mado attach ${i.short}` : ''),
        minutesNow: () => minutes,
      },
      (n) => told.push(n),
    );
    a.configure({ ...DEFAULT_ATTENTION, words: { waiting: 'Waiting', completed: 'Completed' } });
  });
  afterEach(() => {
    a.stop();
    vi.useRealTimers();
  });

  it('an entry first seen is no news; its next need is told once, with its question and the way there', () => {
    expect(a.entries([entry('term:3', 'waiting')])).toEqual([]);
    a.entries([entry('term:3', 'working')]);
    const wanted = a.entries([
      entry('term:3', 'waiting', { needs: { question: 'Allow rm -rf build?', options: ['Yes', 'No'] } }),
    ]);
    expect(wanted).toEqual(['term:3']);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      title: 'codex term:3: Codex Waiting',
      urgent: true,
      jump: 'term:3',
      replaces: null,
      quiet: false,
    });
    // No buffer number nor editor command on a desktop (a click goes there).
    expect(told[0]!.body).toBe('Allow rm -rf build?');
    expect(told[0]!.message).toBe('Codex is Waiting in buffer 3 (codex term:3): Allow rm -rf build? — :MadoJump');
    // The same state again is no transition.
    a.entries([entry('term:3', 'waiting')]);
    expect(told).toHaveLength(1);
  });

  it('without words of the user’s (the daemon with no Neovim ever run), a state is named as the states are shown', () => {
    a.configure(DEFAULT_ATTENTION);
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'waiting', { needs: { question: 'Run it?', options: [] } })]);
    expect(told[0]!.title).toBe('codex job:1a2b3c4d: Codex Waiting');
    expect(told[0]!.message).toMatch(/^Codex is Waiting in job 1a2b3c4d/);
  });

  it('a wait that comes before its question is told with the question once it comes, else with its detail', () => {
    a.entries([entry('term:3', 'working'), entry('term:4', 'working'), entry('term:5', 'working')]);
    // The agent's own word says it waits; its screen shows the question a moment later.
    a.entries([entry('term:3', 'waiting', { detail: 'permission prompt', needs: null })]);
    expect(told).toHaveLength(0);
    vi.advanceTimersByTime(200);
    a.entries([
      entry('term:3', 'waiting', {
        detail: 'permission prompt',
        needs: { question: 'Do you want to proceed?', options: ['Yes', 'No'] },
      }),
    ]);
    expect(told).toHaveLength(1);
    expect(told[0]!.body).toBe('Do you want to proceed?');
    vi.advanceTimersByTime(QUESTION_MS);
    expect(told).toHaveLength(1);
    // No question within QUESTION_MS: told with what it has.
    vi.advanceTimersByTime(DEFAULT_ATTENTION.burstMs);
    a.entries([entry('term:4', 'waiting', { detail: 'permission prompt', needs: null })]);
    vi.advanceTimersByTime(QUESTION_MS - 1);
    expect(told).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(told).toHaveLength(2);
    expect(told[1]!.body).toBe('permission prompt');
    // Answered before its question showed: nothing to tell.
    vi.advanceTimersByTime(DEFAULT_ATTENTION.burstMs);
    a.entries([entry('term:5', 'waiting', { needs: null })]);
    a.entries([entry('term:5', 'working')]);
    vi.advanceTimersByTime(QUESTION_MS * 2);
    expect(told).toHaveLength(2);
  });

  it('an agent in sight is not told while the editor has the focus (or never said), and is once the focus is lost', () => {
    a.entries([entry('term:3', 'working')]);
    a.inSight(new Set([3]), undefined);
    expect(a.entries([entry('term:3', 'completed')])).toEqual(['term:3']);
    expect(told).toHaveLength(0);
    a.entries([entry('term:3', 'working')]);
    a.inSight(new Set([3]), true);
    a.entries([entry('term:3', 'completed')]);
    expect(told).toHaveLength(0);
    a.entries([entry('term:3', 'working')]);
    a.inSight(new Set([3]), false);
    a.entries([entry('term:3', 'completed', { confirmed: true })]);
    expect(told).toHaveLength(1);
    vi.advanceTimersByTime(3000);
    // Another buffer in sight says nothing of this one.
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.inSight(new Set([3]), true);
    a.entries([entry('job:1a2b3c4d', 'waiting')]);
    expect(told).toHaveLength(2);
  });

  it('a turn’s end the screen read alone waits for the records: told with their word and answer, else as it is', () => {
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'stopped', { detail: '✻ Worked for 10s' })]);
    expect(told).toHaveLength(0);
    a.entries([
      entry('term:3', 'completed', { confirmed: true, source: 'jsonl-watcher', detail: 'Fixed the parser.' }),
    ]);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({ title: 'codex term:3: Codex Completed', body: 'Fixed the parser.' });
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(1);
    // No record comes (an agent that writes none): told as the screen read it, after SETTLE_MS.
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'stopped', { detail: '✻ Worked for 10s' })]);
    vi.advanceTimersByTime(SETTLE_MS - 1);
    expect(told).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(told[1]).toMatchObject({ title: 'codex term:3: Codex Stopped', body: '✻ Worked for 10s' });
    vi.advanceTimersByTime(3000);
    // A new turn meanwhile: the end held is no news any more.
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'stopped')]);
    a.entries([entry('term:3', 'working')]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(2);
  });

  it('a turn’s end not seen at work is an old one read anew (a restarted Node process, setup() again): no news', () => {
    // First seen idle (its screen), then its transcript's last turn, caught up on: no notice.
    a.entries([entry('term:3', 'idle')]);
    a.entries([entry('term:3', 'completed', { confirmed: true })]);
    a.entries([entry('job:1a2b3c4d', 'idle')]);
    a.entries([entry('job:1a2b3c4d', 'stopped')]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(0);
    // Its next turn is news, once.
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'completed', { confirmed: true })]);
    a.entries([entry('term:3', 'idle')]);
    a.entries([entry('term:3', 'completed', { confirmed: true })]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(1);
  });

  it('a job’s turn its host counts as ended is news though no reading saw its Working (done, then done again)', () => {
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true, turns: 3 })]);
    // The same word, one turn more: a turn's end, told once.
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true, turns: 4, detail: 'Turn 4 is done.' })]);
    expect(told).toHaveLength(1);
    expect(told[0]!.message).toBe('Codex is Completed in job 1a2b3c4d (codex job:1a2b3c4d) — :MadoJump');
    expect(told[0]!.body).toBe('Turn 4 is done.\nmado attach 1a2b3c4d');
    // Read again, the same count: nothing; Stopped then Completed of one turn: one need.
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true, turns: 4 })]);
    vi.advanceTimersByTime(3000);
    a.entries([entry('job:1a2b3c4d', 'stopped', { turns: 5 })]);
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true, turns: 5 })]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(2);
    // A turn seen at work that the count then ends is one need too.
    a.entries([entry('job:1a2b3c4d', 'working', { turns: 5 })]);
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true, turns: 6 })]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(3);
  });

  it('a job first seen waiting is news when no teller of this machine knew of its wait; told once, by whichever tells first', () => {
    const kept = new Set<string>();
    const writes: string[] = [];
    const toldWaits = {
      has: (k: string) => kept.has(k),
      add: (k: string) => {
        writes.push(k);
        return kept.add(k);
      },
    };
    const fresh = (): Attention => {
      const e = new Attention({ agentName: () => 'Codex', howTo: () => '', toldWaits }, (n) => told.push(n));
      e.configure({ ...DEFAULT_ATTENTION, words: { waiting: 'Waiting' } });
      return e;
    };
    // A Neovim opens: a job there waits on a question no teller followed: told, once.
    const first = fresh();
    const asks = entry('job:box:1a2b3c4d', 'waiting', {
      host: 'box',
      short: '1a2b3c4d',
      turns: 2,
      needs: { question: 'Run rm -rf build?', options: ['Yes', 'No'] },
    });
    first.entries([asks, entry('term:3', 'waiting')]);
    first.entries([asks]);
    expect(told.map((n) => n.title)).toEqual(['codex job:box:1a2b3c4d: Codex Waiting']);
    expect(writes).toHaveLength(1);
    first.stop();
    // The next Node process (a restart), or the daemon: the same wait is no news.
    const second = fresh();
    second.entries([asks]);
    expect(told).toHaveLength(1);
    // The same job's next question is another wait: seen first by the daemon while no one told it,
    // it is kept; a Neovim then opened does not tell it again.
    const daemon = fresh();
    daemon.entries([{ ...asks, state: 'working' }]);
    daemon.entries([{ ...asks, needs: { question: 'Run make?', options: [] } }]);
    expect(told).toHaveLength(2);
    const third = fresh();
    third.entries([{ ...asks, needs: { question: 'Run make?', options: [] } }]);
    expect(told).toHaveLength(2);
    // A terminal first seen waiting stays no news (its id is this Neovim's own).
    expect(told.some((n) => n.title.includes('term:3'))).toBe(false);
    for (const e of [second, daemon, third]) e.stop();
  });

  it('a crash after a turn ended is news; your interrupt and an exit (a job you stopped) are not', () => {
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true })]);
    expect(told).toHaveLength(1);
    vi.advanceTimersByTime(3000);
    a.entries([entry('job:1a2b3c4d', 'failed', { detail: 'exit 137' })]);
    expect(told).toHaveLength(2);
    expect(told[1]).toMatchObject({ title: 'codex job:1a2b3c4d: Codex Failed', urgent: true });
    vi.advanceTimersByTime(3000);
    // Stopped by you (`x`): the job exits, and says nothing.
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'completed', { confirmed: true })]);
    vi.advanceTimersByTime(3000);
    a.entries([entry('job:1a2b3c4d', 'exited')]);
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'completed', { confirmed: true })]);
    vi.advanceTimersByTime(3000);
    a.entries([entry('term:3', 'failed', { interrupted: true })]);
    vi.advanceTimersByTime(3000);
    expect(told.map((n) => n.title)).toEqual([
      'codex job:1a2b3c4d: Codex Completed',
      'codex job:1a2b3c4d: Codex Failed',
      'codex job:1a2b3c4d: Codex Completed',
      'codex term:3: Codex Completed',
    ]);
  });

  it('a job you stopped or killed while it waited or worked exits with no word; one whose agent left on its own is told', () => {
    a.entries([
      entry('job:1a2b3c4d', 'waiting', { needs: { question: 'Proceed?', options: [] } }),
      entry('job:2a2b3c4d', 'working'),
    ]);
    vi.advanceTimersByTime(3000);
    const before = told.length;
    a.entries([
      entry('job:1a2b3c4d', 'exited', { interrupted: true }),
      entry('job:2a2b3c4d', 'exited', { interrupted: true }),
    ]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(before);
    a.entries([entry('job:3a2b3c4d', 'working')]);
    a.entries([entry('job:3a2b3c4d', 'exited')]);
    vi.advanceTimersByTime(3000);
    expect(told.slice(before).map((n) => n.title)).toEqual(['codex job:3a2b3c4d: Codex Exited']);
  });

  it('a turn’s end told again by another source, and an exit after it, are one need', () => {
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'stopped')]);
    a.entries([entry('term:3', 'completed')]);
    a.entries([entry('term:3', 'exited')]);
    vi.advanceTimersByTime(3000);
    expect(told).toHaveLength(1);
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'exited')]);
    expect(told).toHaveLength(2);
  });

  it('a burst is told as its first notice, then one summary that replaces it', () => {
    for (let i = 1; i <= 10; i++) a.entries([entry(`term:${i}`, 'working')]);
    for (let i = 1; i <= 10; i++) {
      a.entries([entry(`term:${i}`, 'completed')]);
      vi.advanceTimersByTime(150);
    }
    vi.advanceTimersByTime(2000);
    expect(told).toHaveLength(2);
    const [first, summary] = told;
    expect(summary).toMatchObject({
      title: '10 agents need you',
      replaces: first!.seq,
      burst: first!.seq,
      jump: 'term:10',
    });
    expect(summary!.items.map((i) => i.id)).toEqual(Array.from({ length: 10 }, (_, i) => `term:${i + 1}`));
    expect(summary!.body.split('\n')[0]).toBe('and 2 more');
    // Quiet again: the next need is a notice of its own.
    vi.advanceTimersByTime(5000);
    a.entries([entry('term:1', 'working')]);
    a.entries([entry('term:1', 'waiting')]);
    expect(told).toHaveLength(3);
    expect(told[2]!.replaces).toBeNull();
  });

  it('news held in a burst that is no longer so when the burst ends is not told (a stale Waiting)', () => {
    a.entries([entry('job:1a2b3c4d', 'working'), entry('job:2b3c4d5e', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'completed')]);
    expect(told).toHaveLength(1);
    // In the burst: it asks, and is answered (working again) before the burst ends.
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'waiting')]);
    vi.advanceTimersByTime(200);
    a.entries([entry('job:1a2b3c4d', 'working')]);
    vi.advanceTimersByTime(DEFAULT_ATTENTION.burstMs);
    expect(told.map((n) => n.message)).toEqual([expect.stringContaining('Completed in job')]);
    // What is still so is told: another's wait held in a burst, the burst's first (a turn's end) left
    // out of the summary once its agent works again.
    vi.advanceTimersByTime(5000);
    a.entries([entry('job:1a2b3c4d', 'completed')]);
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:2b3c4d5e', 'waiting')]);
    vi.advanceTimersByTime(DEFAULT_ATTENTION.burstMs);
    expect(told).toHaveLength(3);
    expect(told[2]!.replaces).toBe(told[1]!.seq);
    expect(told[2]!.items.map((i) => [i.id, i.state])).toEqual([['job:2b3c4d5e', 'waiting']]);
  });

  it('a muted entry is silent (all its states, or some), and wanted all the same', () => {
    a.entries([entry('term:3', 'working'), entry('term:4', 'working')]);
    a.mute('term:3', 'all');
    a.mute('term:4', new Set<AgentState>(['completed']));
    expect(a.entries([entry('term:3', 'waiting'), entry('term:4', 'completed')])).toEqual(['term:3', 'term:4']);
    expect(told).toHaveLength(0);
    a.entries([entry('term:4', 'working')]);
    a.entries([entry('term:4', 'waiting')]);
    expect(told.map((n) => n.jump)).toEqual(['term:4']);
    a.mute('term:3', null);
    a.entries([entry('term:3', 'working')]);
    vi.advanceTimersByTime(3000);
    a.entries([entry('term:3', 'failed')]);
    expect(told.at(-1)?.jump).toBe('term:3');
  });

  it('the end of a turn a route delivered is the route’s; its question is the user’s', () => {
    a.entries([entry('job:1a2b3c4d', 'idle')]);
    a.routeDelivered('job:1a2b3c4d');
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'waiting')]);
    expect(told).toHaveLength(1);
    vi.advanceTimersByTime(3000);
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'completed')]);
    expect(told).toHaveLength(1);
    // The next turn is the user's again.
    a.entries([entry('job:1a2b3c4d', 'working')]);
    a.entries([entry('job:1a2b3c4d', 'completed')]);
    expect(told).toHaveLength(2);
    expect(told[1]!.body).toBe('the last line\nmado attach 1a2b3c4d');
  });

  it('a budget crossed is news once: a turn’s again in a later turn, a session’s once, the day’s once a day; none first seen or muted', () => {
    const spend = { inputTokens: 1000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 1.5 };
    const usage = (over: ('turn' | 'session')[]) => ({
      ...spend,
      model: 'm',
      contextUsedPct: null,
      turn: spend,
      subAgents: null,
      daily: [],
      overBudget: over,
    });
    const at = (id: string, over: ('turn' | 'session')[]) => entry(id, 'working', { usage: usage(over) });
    // First seen over it: told by whoever saw it cross (a Node process before this one).
    a.entries([at('term:3', ['turn'])]);
    expect(told).toHaveLength(0);
    a.entries([at('term:3', [])]);
    a.entries([at('term:3', ['turn'])]);
    expect(told.map((n) => n.message)).toEqual([
      "codex term:3 is over its turn's budget: 1.2k tok · $1.50 — :MadoJump",
    ]);
    expect(told[0]).toMatchObject({ urgent: true, jump: 'term:3' });
    vi.advanceTimersByTime(5000);
    // Still over: no news again; its session's crossing is; a later turn's crossing again is.
    a.entries([at('term:3', ['turn'])]);
    a.entries([at('term:3', ['turn', 'session'])]);
    a.entries([at('term:3', ['session'])]);
    vi.advanceTimersByTime(5000);
    a.entries([at('term:3', ['turn', 'session'])]);
    vi.advanceTimersByTime(5000);
    expect(told.map((n) => n.title)).toEqual([
      "codex term:3: over its turn's budget",
      "codex term:3: over its session's budget",
      "codex term:3: over its turn's budget",
    ]);
    // Muted: none.
    a.entries([at('job:1a2b3c4d', [])]);
    a.mute('job:1a2b3c4d', 'all');
    a.entries([at('job:1a2b3c4d', ['session'])]);
    vi.advanceTimersByTime(5000);
    expect(told).toHaveLength(3);
    // The fleet's day: once a day.
    const today = { day: '2026-12-06', today: spend, overDay: true };
    a.spending(today);
    a.spending(today);
    vi.advanceTimersByTime(5000);
    a.spending({ ...today, day: '2026-12-07' });
    expect(told.slice(3).map((n) => n.message)).toEqual([
      "The fleet is over the day's budget: today 1.2k tok · $1.50",
      "The fleet is over the day's budget: today 1.2k tok · $1.50",
    ]);
  });

  it('states the user turned off, or notifications off, tell nothing', () => {
    a.configure({ ...DEFAULT_ATTENTION, states: { waiting: true } });
    a.entries([entry('term:3', 'working')]);
    expect(a.entries([entry('term:3', 'completed')])).toEqual([]);
    a.configure({ ...DEFAULT_ATTENTION, enabled: false });
    a.entries([entry('term:3', 'working')]);
    a.entries([entry('term:3', 'waiting')]);
    expect(told).toHaveLength(0);
  });

  it('a notice in the quiet period says so (told inside the editor only); control characters never pass', () => {
    a.configure({ ...DEFAULT_ATTENTION, quiet: { from: 22 * 60, to: 8 * 60 } });
    minutes = 23 * 60;
    a.entries([entry('term:3', 'working', { name: 'evil\x1b]0;pwned\x07name' })]);
    a.entries([
      entry('term:3', 'waiting', {
        name: 'evil\x1b]0;pwned\x07name',
        needs: { question: 'ok?\x1b[2J\r\nrm', options: [] },
      }),
    ]);
    expect(told[0]!.quiet).toBe(true);
    expect(JSON.stringify(told[0])).not.toMatch(/\\u001b|\\u0007|\\r/);
    expect(told[0]!.title).toContain('evil ]0;pwned name');
  });
});

describe('quiet periods', () => {
  it('span midnight or not; HH:MM read strictly', () => {
    expect(inQuiet({ from: 22 * 60, to: 8 * 60 }, 23 * 60)).toBe(true);
    expect(inQuiet({ from: 22 * 60, to: 8 * 60 }, 7 * 60 + 59)).toBe(true);
    expect(inQuiet({ from: 22 * 60, to: 8 * 60 }, 8 * 60)).toBe(false);
    expect(inQuiet({ from: 13 * 60, to: 14 * 60 }, 13 * 60 + 30)).toBe(true);
    expect(inQuiet({ from: 13 * 60, to: 14 * 60 }, 12 * 60)).toBe(false);
    expect(inQuiet(null, 0)).toBe(false);
    expect(minutesOf('22:00')).toBe(1320);
    expect(minutesOf('8:05')).toBe(485);
    expect(minutesOf('24:00')).toBeUndefined();
    expect(minutesOf('10pm')).toBeUndefined();
  });
});
