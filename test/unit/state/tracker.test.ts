import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiChatRecord } from '../../../src/agents/gemini.js';
import { opencodeTurn } from '../../../src/agents/opencode.js';
import type { OpenCodeMessage } from '../../../src/agents/opencode.js';
import type { RecordSignal } from '../../../src/shared/types.js';
import { TENTATIVE_MS } from '../../../src/state/tentative.js';
import { SETTLE_MS } from '../../../src/state/settle.js';
import { HOLD_MS, Tracker } from '../../../src/state/tracker.js';
import type { Screen } from '../../../src/detect/index.js';
import screens from '../../fixtures/screens.json';

const rule = '─'.repeat(40);
const idle: Screen = { lines: ['Claude Code', rule, '❯ ', rule, '  ? for shortcuts'], title: '✳ Claude Code' };
const working: Screen = {
  lines: ['Claude Code', '> go', '✶ Baking… (2s · esc to interrupt)', rule, '❯ ', rule],
  title: '',
};
const done = (line: string): Screen => ({ lines: ['Claude Code', '> go', '● ok', line, rule, '❯ ', rule], title: '' });
const asking: Screen = {
  lines: ['Claude Code', '✻ Baked for 10s', ' Do you want to proceed?', ' ❯ 1. Yes'],
  title: '',
};

/**
 * A tracker of terminal 1 whose turn is under way (idle, the session file busy, the spinner), and
 * the states it has told in order, each once (`feed` takes what a call answers).
 */
function underWay(): { t: Tracker; states: string[]; feed: (c: ReturnType<Tracker['screen']>) => void } {
  const t = new Tracker();
  const states: string[] = [];
  const feed = (c: ReturnType<Tracker['screen']>): void => {
    if (c && c.state !== states.at(-1)) states.push(c.state);
  };
  feed(t.screen(1, idle, 1000));
  feed(t.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 1090 }, 1100));
  feed(t.screen(1, working, 1150));
  return { t, states, feed };
}

/** A captured screen of test/fixtures/screens.json. */
const screen = (name: keyof typeof screens): Screen => ({ lines: screens[name].lines, title: screens[name].title });

/** Gemini CLI 0.61.0's chat of three turns (captured): say hello; run the tests (a shell call, approved); say bye. */
const geminiChat = (): RecordSignal[] =>
  readFileSync(path.join(__dirname, '../../fixtures/records/gemini-usage-chat.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .flatMap((l) => geminiChatRecord(JSON.parse(l)) ?? []);

describe('Tracker', () => {
  it('reports the first state and then only changes', () => {
    const t = new Tracker();
    const first = t.screen(1, idle, 1000);
    expect(first).toMatchObject({
      buf: 1,
      agent: 'claude',
      state: 'idle',
      previous: null,
      since: 1000,
      source: 'pty-scrape',
      confirmed: false,
    });
    expect(t.screen(1, idle, 2000)).toBeNull();
    const next = t.screen(1, working, 3000);
    expect(next).toMatchObject({ state: 'working', previous: 'idle', since: 3000 });
  });

  it('a terminal read again by a new Node process in the state Lua kept keeps its since; in another state, or with hostile marks, it begins now', () => {
    const t = new Tracker();
    t.restore([
      { id: 'term:1', agent: 'claude', state: 'idle', since: 500 },
      { id: 'term:2', agent: 'claude', state: 'working', since: 600 },
      { id: 'term:3', agent: 'claude', state: 'idle', since: Number.MAX_SAFE_INTEGER },
      { id: 'nvim:9:1', agent: 'claude', state: 'idle', since: 1 },
      'term:4',
    ]);
    expect(t.screen(1, idle, 1000)).toMatchObject({ state: 'idle', since: 500 });
    expect(t.screen(2, idle, 1000)).toMatchObject({ state: 'idle', since: 1000 });
    expect(t.screen(3, idle, 1000)).toMatchObject({ since: 1000 });
    // Taken once: the terminal wiped and opened again under the same number begins anew.
    t.forget(1);
    expect(t.screen(1, idle, 2000)).toMatchObject({ since: 2000 });
  });

  it('waits for a new terminal to draw something', () => {
    const t = new Tracker();
    expect(t.screen(1, { lines: ['', ''], title: 'term://~//42:claude' }, 1000)).toBeNull();
    expect(t.get(1)).toBeUndefined();
    expect(t.screen(1, idle, 1100)).toMatchObject({ agent: 'claude', previous: null });
  });

  it('keeps `since` when only the detail changes', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    const tick = t.screen(1, { ...working, lines: working.lines.map((l) => l.replace('2s', '3s')) }, 2000);
    expect(tick).toMatchObject({ state: 'working', since: 1000, previous: 'working' });
    expect(tick?.done).toBeUndefined();
  });

  it('fires a completion once per completion line', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    const c = t.screen(1, done('✻ Baked for 10s'), 2000);
    expect(c).toMatchObject({ state: 'stopped', done: { line: '✻ Baked for 10s' } });
    expect(t.screen(1, done('✻ Baked for 10s'), 2100)).toBeNull();
    // A question pops up and goes away: the same old line does not fire again.
    expect(t.screen(1, asking, 2200)?.done).toBeUndefined();
    const back = t.screen(1, done('✻ Baked for 10s'), 2300);
    expect(back?.state).toBe('stopped');
    expect(back?.done).toBeUndefined();
  });

  it('the same completion redrawn with another verb does not fire again (Claude Code 2.1 does that)', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    expect(t.screen(1, done('✻ Baked for 5s'), 2000)?.done).toEqual({ line: '✻ Baked for 5s' });
    const redrawn = t.screen(1, done('✻ Worked for 5s'), 3000);
    expect(redrawn?.done).toBeUndefined();
    expect(redrawn?.since).toBe(2000);
  });

  it('the same completion text after new work is a new completion', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    expect(t.screen(1, done('✻ Baked for 10s'), 2000)?.done).toBeDefined();
    t.screen(1, working, 3000);
    expect(t.screen(1, done('✻ Baked for 10s'), 4000)?.done).toBeDefined();
  });

  it('a completion on the first screen is history: no event, but it counts as seen', () => {
    const t = new Tracker();
    const first = t.screen(1, done('✻ Baked for 10s'), 1000);
    expect(first).toMatchObject({ state: 'stopped', previous: null });
    expect(first?.done).toBeUndefined();
    t.screen(1, asking, 1100);
    expect(t.screen(1, done('✻ Baked for 10s'), 1200)?.done).toBeUndefined();
    t.screen(1, working, 1300);
    expect(t.screen(1, done('✻ Baked for 3s'), 1400)?.done).toEqual({ line: '✻ Baked for 3s' });
  });

  it('an exit is final for that buffer and carries the status', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    const e = t.exit(1, 3, 2000);
    expect(e).toMatchObject({
      agent: 'claude',
      state: 'exited',
      source: 'terminal',
      detail: 'exit 3',
      previous: 'working',
    });
    expect(t.screen(1, idle, 3000)).toBeNull();
    expect(t.get(1)?.state).toBe('exited');
  });

  it('forgets a wiped buffer', () => {
    const t = new Tracker();
    t.screen(1, idle, 1000);
    t.screen(2, idle, 1000);
    expect(t.forget(1)).toBe(true);
    expect(t.get(1)).toBeUndefined();
    expect(t.size).toBe(1);
    expect(t.forget(1)).toBe(false);
  });

  it('records outrank the screen for the same turn, and one turn fires one MadoAgentDone', () => {
    const t = new Tracker();
    t.screen(1, idle, 1000);
    expect(t.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1100)).toMatchObject({
      state: 'working',
      source: 'session-file',
      confirmed: true,
    });
    t.screen(1, working, 1200);
    const end = t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 5.0s' }, 1300);
    expect(end).toMatchObject({
      state: 'completed',
      source: 'jsonl-watcher',
      confirmed: true,
      done: { line: 'turn ended after 5.0s' },
    });
    // The screen's completion line of the same turn: no second event, and Completed stays.
    const line = t.screen(1, done('✻ Baked for 5s'), 1400);
    expect(line?.done).toBeUndefined();
    expect(t.get(1)).toMatchObject({ state: 'completed', source: 'jsonl-watcher' });
    expect(t.record(1, { state: 'idle', source: 'session-file', detail: 'idle' }, 1500)).toBeNull();
    // A new turn on the screen ends the Completed.
    expect(t.screen(1, working, 1600)).toMatchObject({ state: 'working', source: 'pty-scrape' });
  });

  it("a live status gone idle before this turn's records are read shows no end of the turn before, and no Idle", () => {
    // Turn 1 ended by its record; turn 2 begins by the live status, which goes idle again before the
    // transcript's records of turn 2 are read (a loaded machine): Working holds until they end it.
    const t = new Tracker();
    const told: string[] = [];
    const feed = (c: ReturnType<Tracker['screen']>): void => {
      if (c) told.push(`${c.state}:${c.source}`);
    };
    feed(t.screen(1, idle, 1000));
    feed(t.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 1090 }, 1100));
    feed(t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'prompt', at: 1110 }, 1120));
    feed(t.record(1, { state: 'idle', source: 'session-file', detail: 'idle', at: 1190 }, 1200));
    feed(t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'Turn 1 is done.', at: 1250 }, 1260));
    told.length = 0;
    feed(t.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 2000 }, 2010));
    feed(t.record(1, { state: 'idle', source: 'session-file', detail: 'idle', at: 2300 }, 2310));
    feed(t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'running tools', at: 2100 }, 2350));
    const end = t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'Turn 2 is done.', at: 2290 }, 2400);
    feed(end);
    expect(told).toEqual(['working:session-file', 'completed:jsonl-watcher']);
    expect(end).toMatchObject({ detail: 'Turn 2 is done.', done: { line: 'Turn 2 is done.' } });
    // No record at all within HOLD_MS: what the records and the live status say shows then.
    const u = new Tracker();
    u.screen(1, idle, 1000);
    u.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'Turn 1 is done.', at: 1250 }, 1260);
    u.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 2000 }, 2010);
    expect(u.record(1, { state: 'idle', source: 'session-file', detail: 'idle', at: 2300 }, 2310)).toBeNull();
    expect(u.release(2310 + HOLD_MS)?.length ?? 0).toBeGreaterThan(0);
  });

  it('late news of the same turn fires no second MadoAgentDone, whichever source ends it first', () => {
    // The transcript ends the turn while the screen still shows the spinner (its redraw comes late).
    const a = new Tracker();
    a.screen(1, idle, 1000);
    a.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1100);
    a.screen(1, working, 1200);
    expect(
      a.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 5.0s' }, 1300)?.done,
    ).toBeDefined();
    const tick = { ...working, lines: working.lines.map((l) => l.replace('2s', '3s')) };
    expect(a.screen(1, tick, 1350)?.done).toBeUndefined();
    a.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1380); // the same file read again
    expect(a.screen(1, done('✻ Baked for 5s'), 1400)?.done).toBeUndefined();

    // The transcript ends the turn while the screen still shows its approval; the spinner's screen of
    // that turn comes after (seen in CI: a MadoAgentDone for each), then its completion line.
    const c = new Tracker();
    c.screen(1, idle, 1000);
    c.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1100);
    c.screen(1, working, 1150);
    c.screen(1, asking, 1200);
    expect(
      c.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 5.0s' }, 1300)?.done,
    ).toBeDefined();
    c.screen(1, working, 1350);
    expect(c.screen(1, done('✻ Baked for 5s'), 1400)?.done).toBeUndefined();
    // Once the screen has shown the end, its next Working is new work, told by the screen alone.
    c.screen(1, working, 1500);
    expect(c.screen(1, done('✻ Baked for 2s'), 1600)?.done).toEqual({ line: '✻ Baked for 2s' });

    // The transcript ends the turn; the session file's older `busy` comes after it (read late, or read
    // anew by a follower started again): no new work, so the screen's completion line is the same turn.
    const d = new Tracker();
    d.screen(1, idle, 1000);
    d.process(1, 'claude', 1000);
    d.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 900 }, 1100);
    d.screen(1, working, 1150);
    expect(
      d.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 5.0s', at: 1250 }, 1300)
        ?.done,
    ).toBeDefined();
    d.process(1, null, 1310);
    d.process(1, 'claude', 1320);
    d.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 900 }, 1330);
    expect(d.screen(1, done('✻ Baked for 5s'), 1400)?.done).toBeUndefined();
    // A session file written after the end is new work.
    d.record(1, { state: 'idle', source: 'session-file', detail: 'idle', at: 1260 }, 1450);
    d.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 1500 }, 1500);
    expect(
      d.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 1.0s', at: 1600 }, 1600)
        ?.done,
    ).toBeDefined();

    // The screen ends it first; a session file read again, then the transcript's end, come after.
    const b = new Tracker();
    b.screen(1, idle, 1000);
    b.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1100);
    b.screen(1, working, 1200);
    expect(b.screen(1, done('✻ Baked for 5s'), 1300)?.done).toEqual({ line: '✻ Baked for 5s' });
    b.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1350);
    expect(
      b.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 5.0s' }, 1400)?.done,
    ).toBeUndefined();

    // A real next turn still fires: the session file goes from idle to working, or the screen starts working.
    b.record(1, { state: 'idle', source: 'session-file', detail: 'idle' }, 1500);
    b.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1600);
    expect(
      b.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 2.0s' }, 1700)?.done,
    ).toEqual({
      line: 'turn ended after 2.0s',
    });
    b.screen(1, working, 1800);
    expect(b.screen(1, done('✻ Baked for 2s'), 1900)?.done).toEqual({ line: '✻ Baked for 2s' });
  });

  it('a screen of the turn drawn after the record that ended it does not undo its end (seen in CI: Completed told twice)', () => {
    // The order CI read: the approval on the screen, the session file busy, the transcript's end,
    // then the spinner's screen of that turn, the session file idle, and the completion line.
    const { t, states, feed } = underWay();
    feed(t.screen(1, asking, 1200));
    feed(t.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 1250 }, 1260));
    feed(
      t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'turn ended after 10.0s', at: 1300 }, 1310),
    );
    feed(t.screen(1, working, 1320));
    feed(t.record(1, { state: 'idle', source: 'session-file', detail: 'idle', at: 1300 }, 1330));
    feed(t.screen(1, done('✻ Baked for 10s'), 1350));
    expect(states).toEqual(['idle', 'working', 'waiting', 'working', 'completed']);
    // A question the screen shows after its end is news again (Codex writes no record of one).
    feed(t.screen(1, working, 1500));
    feed(t.screen(1, asking, 1600));
    expect(states.at(-1)).toBe('waiting');
  });

  it('an approval the screen shows after the session file went busy again is the answered one (seen in CI: Waiting told after it)', () => {
    // The order a loaded machine read: the session file waiting, then busy (approved), and only then
    // the screen's approval menu, then its spinner; a second approval later in the same turn.
    const { t, states, feed } = underWay();
    feed(t.record(1, { state: 'waiting', source: 'session-file', detail: 'permission prompt', at: 1190 }, 1200));
    feed(t.record(1, { state: 'working', source: 'session-file', detail: 'busy', at: 1210 }, 1220));
    feed(t.screen(1, asking, 1250));
    expect(states).toEqual(['idle', 'working', 'waiting', 'working']);
    feed(t.screen(1, working, 1300));
    // The next question, shown before the session file says it: the screen tells it.
    feed(t.screen(1, asking, 1400));
    expect(states).toEqual(['idle', 'working', 'waiting', 'working', 'waiting']);
    expect(t.get(1)).toMatchObject({ state: 'waiting', source: 'pty-scrape' });
  });

  it("Gemini CLI's text before the tool call it asks for is no turn's end: its approval is Waiting, each end told once with its answer", () => {
    const [hello, helloAnswer, run, runText, ran, result, runAnswer] = geminiChat();
    expect(runText).toMatchObject({ state: 'completed', detail: 'I will run a command.', tentative: true });
    const t = new Tracker();
    const states: string[] = [];
    const dones: string[] = [];
    const feed = (c: ReturnType<Tracker['screen']>): void => {
      if (c && c.state !== states.at(-1)) states.push(c.state);
      if (c?.done) dones.push(c.done.line);
    };
    feed(t.screen(1, screen('gemini-real-idle'), 1000));
    // A turn of text alone: its record's end waits for the screen's.
    feed(t.record(1, hello!, 1100));
    feed(t.screen(1, screen('gemini-real-working'), 1150));
    feed(t.record(1, helloAnswer!, 1200));
    expect(t.get(1)?.state).toBe('working');
    feed(t.screen(1, screen('gemini-real-done'), 1250));
    // Its text read first (the usual order), then the approval on the screen.
    feed(t.record(1, run!, 1300));
    feed(t.screen(1, screen('gemini-real-working'), 1350));
    feed(t.record(1, runText!, 1400));
    feed(t.screen(1, screen('gemini-real-approval'), 1450));
    // The question stays as long as it is asked, with no release of the held end.
    expect(t.release(1450 + 10 * TENTATIVE_MS)).toEqual([]);
    expect(t.get(1)).toMatchObject({ state: 'waiting', source: 'pty-scrape' });
    feed(t.record(1, ran!, 20_000));
    feed(t.record(1, result!, 20_010));
    feed(t.screen(1, screen('gemini-real-working'), 20_050));
    feed(t.record(1, runAnswer!, 20_100));
    feed(t.screen(1, screen('gemini-real-done'), 20_150));
    expect(states).toEqual(['idle', 'working', 'completed', 'working', 'waiting', 'working', 'completed']);
    expect(dones).toEqual(['You said: say hello', 'Done: ran it.']);
    expect(t.get(1)).toMatchObject({ state: 'completed', source: 'jsonl-watcher', detail: 'Done: ran it.' });
  });

  it("Gemini CLI's approval read before its text's record stays Waiting; a screen that never shows the end lets the end go after TENTATIVE_MS", () => {
    const [, , run, runText, ran, , runAnswer] = geminiChat();
    const t = new Tracker();
    t.screen(1, screen('gemini-real-idle'), 1000);
    t.record(1, run!, 1100);
    t.screen(1, screen('gemini-real-approval'), 1200);
    expect(t.record(1, runText!, 1300)).toBeNull();
    expect(t.get(1)).toMatchObject({ state: 'waiting' });
    t.record(1, ran!, 5000);
    t.screen(1, screen('gemini-real-working'), 5100);
    expect(t.record(1, runAnswer!, 5200)).toBeNull();
    expect(t.nextRelease()).toBe(5200 + TENTATIVE_MS);
    expect(t.release(5200 + TENTATIVE_MS - 1)).toEqual([]);
    expect(t.release(5200 + TENTATIVE_MS)).toEqual([
      expect.objectContaining({ state: 'completed', done: { line: 'Done: ran it.' } }),
    ]);
  });

  it("OpenCode's interrupt on the screen ends the turn though its store, written again as it stops, is read after it", () => {
    // OpenCode 1.18.33's messages (captured): the third turn's prompt and its step while it streams.
    const all = JSON.parse(
      readFileSync(path.join(__dirname, '../../fixtures/records/opencode-messages.json'), 'utf8'),
    ) as OpenCodeMessage[];
    const prompt = all.find((m) => m.id.startsWith('msg_22c314b4'))!;
    const step = all.find((m) => m.id.startsWith('msg_22c314b7'))!;
    // As it is while the answer streams: no end yet.
    const streaming = { ...step, data: { role: 'assistant', time: { created: step.created } } };
    const answering = opencodeTurn([prompt, streaming])!;
    expect(answering).toMatchObject({ state: 'working', detail: 'answering', at: step.created });
    const t = new Tracker();
    const at = prompt.created;
    t.screen(1, screen('opencode-real-idle'), at - 500);
    t.record(1, opencodeTurn([prompt])!, at + 10);
    t.screen(1, screen('opencode-real-working'), at + 100);
    t.record(1, answering, at + 200);
    expect(t.get(1)).toMatchObject({ state: 'working', source: 'session-db' });
    expect(t.screen(1, screen('opencode-real-interrupted'), at + 6000)).toMatchObject({ state: 'failed' });
    // The store changes as the turn stops; its step, still without an end, is read again.
    expect(t.record(1, answering, at + 6100)).toBeNull();
    expect(t.get(1)).toMatchObject({ state: 'failed', source: 'pty-scrape' });
    // A prompt written after the interrupt is a new turn.
    const next = {
      ...prompt,
      id: 'msg_next',
      created: at + 9000,
      data: { role: 'user', time: { created: at + 9000 } },
    };
    expect(t.record(1, opencodeTurn([prompt, next])!, at + 9050)).toMatchObject({
      state: 'working',
      source: 'session-db',
    });
  });

  it('a record of new work lets the screen tell again what the records lack (its question)', () => {
    // A queued prompt: the screen goes on working into the next turn, which its records start.
    const t = new Tracker();
    t.screen(1, idle, 1000);
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'prompt', at: 1090 }, 1100);
    t.screen(1, working, 1150);
    t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'done', at: 1200 }, 1210);
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'prompt', at: 1300 }, 1310);
    expect(t.screen(1, asking, 1400)).toMatchObject({ state: 'waiting', source: 'pty-scrape' });
  });

  it('a record for a terminal never seen is ignored', () => {
    expect(new Tracker().record(9, { state: 'working', source: 'jsonl-watcher', detail: '' }, 1)).toBeNull();
  });

  it('the process tree outranks screen markers, and an agent that leaves makes it a shell again', () => {
    const t = new Tracker();
    t.screen(1, { lines: ['$ some-wrapper', 'loading…'], title: '' }, 1000);
    expect(t.get(1)?.agent).toBe('shell');
    expect(t.process(1, 'opencode', 1100)).toMatchObject({ agent: 'opencode' });
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: '' }, 1150);
    expect(t.process(1, 'opencode', 1200)).toBeNull();
    expect(t.process(1, null, 1300)).toMatchObject({ agent: 'shell', state: 'idle', source: 'pty-scrape' });
  });

  it("the agent the process tree names reads the screen by its rules: Codex's approval menu alone is Codex waiting", () => {
    const s = screens['codex-approval'];
    const menu = s.lines.slice(s.lines.findIndex((l) => l.includes('Would you like to run')));
    const t = new Tracker();
    t.screen(1, { lines: ['$ codex'], title: '' }, 1000);
    t.process(1, 'codex', 1100);
    expect(t.screen(1, { lines: menu, title: '' }, 1200)).toMatchObject({ agent: 'codex', state: 'waiting' });
    // Without the process tree, the menu's own words name Codex too.
    const u = new Tracker();
    u.screen(1, { lines: menu, title: '' }, 1200);
    expect(u.get(1)).toMatchObject({ agent: 'codex', state: 'waiting' });
  });

  it('remembers the first prompt the agent echoed (its intent), for the agent that echoed it', () => {
    const t = new Tracker();
    t.screen(
      1,
      { lines: ['Gemini CLI', '> summarize the README', '', '⠙ Thinking... (esc to cancel, 2s)'], title: '' },
      1,
    );
    expect(t.intentOf(1)).toBe('summarize the README');
    t.screen(1, { lines: ['Gemini CLI', '> and the docs', '', '✦ The docs…'], title: '' }, 2);
    expect(t.intentOf(1)).toBe('summarize the README');
    t.screen(1, { lines: ['dev@box:~$ '], title: '' }, 3);
    expect(t.intentOf(1)).toBeUndefined();
  });

  it('no Idle flash between Working and Completed: the session file going idle waits for the transcript’s turn end', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    t.record(1, { state: 'working', source: 'session-file', detail: 'busy' }, 1010);
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'tool_use' }, 1020);
    expect(t.get(1)?.state).toBe('working');
    // Claude Code's session file says idle ~110 ms before the transcript's end_turn is read.
    expect(t.record(1, { state: 'idle', source: 'session-file', detail: 'idle' }, 2000)).toBeNull();
    expect(t.get(1)?.state).toBe('working');
    expect(t.nextRelease()).toBe(2000 + HOLD_MS);
    const end = t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'end_turn' }, 2110);
    expect(end).toMatchObject({ state: 'completed', previous: 'working', done: { line: 'end_turn' } });
    expect(t.nextRelease()).toBeUndefined();
    expect(t.release(5000)).toEqual([]);
  });

  it('while an Idle is held, the screen’s completion line is held too: the record’s end shows with no Stopped between, and tells the end once', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'tool_use' }, 1020);
    expect(t.record(1, { state: 'idle', source: 'session-file', detail: 'idle' }, 2000)).toBeNull();
    expect(t.screen(1, done('✻ Baked for 1s'), 2050)).toBeNull();
    expect(t.get(1)?.state).toBe('working');
    expect(t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'end_turn' }, 2110)).toMatchObject({
      state: 'completed',
      previous: 'working',
      done: { line: 'end_turn' },
    });
    expect(t.nextRelease()).toBeUndefined();
    expect(t.release(5000)).toEqual([]);
  });

  it('a screen’s completion line no record follows shows as Stopped once it is due, with its end', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'tool_use' }, 1020);
    t.record(1, { state: 'idle', source: 'session-file', detail: 'idle' }, 2000);
    expect(t.screen(1, done('✻ Baked for 1s'), 2050)).toBeNull();
    expect(t.release(2000 + HOLD_MS - 1)).toEqual([]);
    expect(t.release(2000 + HOLD_MS)).toMatchObject([
      { state: 'stopped', source: 'pty-scrape', previous: 'working', done: { line: '✻ Baked for 1s' } },
    ]);
    // The record that comes after is the same turn's end, not a second one.
    const end = t.record(1, { state: 'completed', source: 'jsonl-watcher', detail: 'end_turn' }, 4000);
    expect(end).toMatchObject({ state: 'completed', previous: 'stopped' });
    expect(end?.done).toBeUndefined();
  });

  it('an Idle the transcript never ends shows once it is due', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    t.record(1, { state: 'working', source: 'jsonl-watcher', detail: 'tool_use' }, 1020);
    t.record(1, { state: 'idle', source: 'session-file', detail: 'idle' }, 2000);
    expect(t.release(2000 + HOLD_MS - 1)).toEqual([]);
    const due = t.release(2000 + HOLD_MS);
    expect(due).toMatchObject([{ state: 'idle', previous: 'working', source: 'session-file' }]);
    expect(t.nextRelease()).toBeUndefined();
  });
});

describe('Tracker: what the agent notified its terminal of (OSC 9, 777, 99)', () => {
  it('a wait notified while the screen still works is Waiting, confirmed; what changes after it decides again', () => {
    const t = new Tracker();
    t.screen(1, working, 1000);
    const waiting = t.notification(1, { state: 'waiting', detail: 'needs your permission', repeat: true }, 2000);
    expect(waiting).toMatchObject({
      state: 'waiting',
      source: 'notification',
      confirmed: true,
      detail: 'needs your permission',
    });
    expect(t.sourcesOf(1)?.notified).toMatchObject({ state: 'waiting', at: 2000 });
    // The screen ends the turn after it: the screen's state.
    expect(t.screen(1, done('✻ Worked for 5s'), 3000)).toMatchObject({ state: 'stopped', source: 'pty-scrape' });
  });
  it('an unknown terminal, or one whose job ended, takes none', () => {
    const t = new Tracker();
    expect(t.notification(9, { state: 'waiting', detail: 'x' }, 1)).toBeNull();
    t.screen(1, working, 1000);
    t.exit(1, 0, 1500);
    expect(t.notification(1, { state: 'waiting', detail: 'x' }, 2000)).toBeNull();
  });
});

describe('Tracker: a turn’s end told once though the agent’s process flickers', () => {
  it('a process scan that loses the agent for a moment (its records then read again) tells no second end; the next turn’s is told', () => {
    const t = new Tracker();
    const dones: string[] = [];
    const take = (c: ReturnType<Tracker['screen']>): void => {
      if (c?.done) dones.push(c.done.line);
    };
    const jsonl = (state: 'working' | 'completed', at: number, detail: string) =>
      ({ state, source: 'jsonl-watcher', detail, at }) as const;
    const live = (state: 'idle' | 'working', at: number) =>
      ({ state, source: 'session-file', detail: state, at }) as const;
    // A turn under way: Claude Code's fixture screens, its session file and its transcript.
    take(t.screen(2, screen('claude-idle'), 1000));
    take(t.process(2, 'claude', 1010));
    take(t.record(2, jsonl('working', 1100, 'prompt'), 1100));
    take(t.record(2, live('working', 1105), 1110));
    take(t.screen(2, screen('claude-working'), 1120));
    // It ends (written at 2000–2002); a loaded machine reads the session file and the screen first, and a
    // `ps` scan then misses the agent and finds it again: its follower reads the transcript anew.
    take(t.record(2, live('idle', 2001), 2010));
    take(t.screen(2, screen('claude-stopped'), 2030));
    take(t.process(2, null, 2050));
    take(t.record(2, jsonl('completed', 2000, 'Removed the build folder.'), 2070));
    take(t.process(2, 'claude', 2090));
    take(t.record(2, live('idle', 2001), 2095));
    take(t.record(2, jsonl('working', 1100, 'prompt'), 2100));
    take(t.record(2, jsonl('completed', 2000, 'Removed the build folder.'), 2105));
    expect(dones).toEqual(['✻ Baked for 10s']);
    // The next turn, written after that end, is new work: its end is told.
    take(t.record(2, jsonl('working', 5000, 'next prompt'), 5000));
    take(t.screen(2, screen('claude-working'), 5020));
    take(t.record(2, jsonl('completed', 6000, 'Next answer.'), 6000));
    expect(dones).toEqual(['✻ Baked for 10s', 'Next answer.']);
  });
});

describe('Tracker: output that has just appeared is not Idle at once (issue 32)', () => {
  const codex = JSON.parse(
    readFileSync(path.join(__dirname, '../../fixtures/screens/versions/codex.json'), 'utf8'),
  ) as Record<string, Screen>;
  // Codex 0.96.0's real screens: its turn under way, then its answer with the spinner's line gone.
  const codexWorking = (n: number): Screen => ({
    lines: codex['cx096-working']!.lines.map((l) => l.replace('(1s', `(${n}s`)),
    title: 'vm',
  });
  const codexAnswer = (text = 'Slow answer to: slow please'): Screen => ({
    lines: codex['cx096-done']!.lines.map((l) => l.replace('Slow answer to: slow please', text)),
    title: 'vm',
  });

  it('an Idle after Working is told once the screen has stood so for SETTLE_MS, not before', () => {
    const t = new Tracker();
    t.screen(1, codexWorking(1), 1000);
    expect(t.get(1)).toMatchObject({ agent: 'codex', state: 'working' });
    expect(t.screen(1, codexAnswer(), 1100)).toBeNull();
    expect(t.get(1)?.state).toBe('working');
    expect(t.nextRelease()).toBe(1100 + SETTLE_MS);
    expect(t.release(1100 + SETTLE_MS - 1)).toEqual([]);
    expect(t.release(1100 + SETTLE_MS)).toEqual([
      expect.objectContaining({ state: 'idle', previous: 'working', since: 1100 + SETTLE_MS }),
    ]);
    expect(t.nextRelease()).toBeUndefined();
  });

  it('output that keeps coming starts the wait again; work shown again in that time was never Idle', () => {
    const t = new Tracker();
    const states: string[] = [];
    const feed = (c: ReturnType<Tracker['screen']> | ReturnType<Tracker['release']>): void => {
      for (const x of [c ?? []].flat()) if (x.state !== states.at(-1)) states.push(x.state);
    };
    feed(t.screen(1, codexWorking(1), 1000));
    feed(t.screen(1, codexAnswer('Slow answer, its first words'), 1500));
    feed(t.release(1500 + SETTLE_MS - 100));
    feed(t.screen(1, codexAnswer('Slow answer, its first words and more'), 1500 + SETTLE_MS - 50));
    feed(t.release(1500 + SETTLE_MS + 10));
    expect(t.nextRelease()).toBe(1500 + 2 * SETTLE_MS - 50);
    // The spinner's line drawn again: the turn goes on, and no Idle was told in it.
    feed(t.screen(1, codexWorking(3), 1500 + SETTLE_MS + 100));
    expect(t.nextRelease()).toBeUndefined();
    feed(t.release(10_000));
    expect(states).toEqual(['working']);
    // Its real end: told once the screen stood still.
    feed(t.screen(1, codexAnswer(), 11_000));
    feed(t.release(11_000 + SETTLE_MS));
    expect(states).toEqual(['working', 'idle']);
  });

  it("a record's end that waits for the screen is told with the screen's Idle at once: the agent's word and its screen agree", () => {
    const [hello, helloAnswer] = geminiChat();
    const t = new Tracker();
    t.screen(1, screen('gemini-real-idle'), 1000);
    t.record(1, hello!, 1100);
    t.screen(1, screen('gemini-real-working'), 1150);
    expect(t.record(1, helloAnswer!, 1200)).toBeNull();
    expect(t.screen(1, screen('gemini-real-done'), 1250)).toMatchObject({ state: 'completed' });
  });
});
