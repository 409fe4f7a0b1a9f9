// Routes: the chain rules, the payload, and the engine's firing, with a host that records what it is asked.
import { existsSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { appendText } from '../../../src/routes/io.js';
import { closesCycle, nextChain } from '../../../src/routes/chain.js';
import { DEFAULT_SETTINGS, MAX_PARKED, RouteEngine } from '../../../src/routes/engine.js';
import { TargetOffline } from '../../../src/shared/errors.js';
import type { RouteEnd, RouteBackend } from '../../../src/routes/engine.js';
import { fill, provenance, spilled, templateText } from '../../../src/routes/payload.js';
import type { Chain, Route } from '../../../src/shared/route-types.js';
import { elapse } from '../../helpers/wait.js';

describe('chains', () => {
  let n = 0;
  const id = (): string => `c${++n}`;
  it('a payload goes on a chain: its hops counted, the entries it reached kept', () => {
    const first = nextChain(undefined, 'A', 'B', 3, id);
    expect(first).toEqual({ chain: { id: 'c1', hop: 1, visited: ['A', 'B'] } });
    const second = nextChain('chain' in first ? first.chain : undefined, 'B', 'C', 3, id);
    expect(second).toMatchObject({ chain: { id: 'c1', hop: 2, visited: ['A', 'B', 'C'] } });
  });
  it('A → B → A and A → B → C → A stop; so does a chain past its hops', () => {
    const ab = { id: 'x', hop: 1, visited: ['A', 'B'] };
    expect(nextChain(ab, 'B', 'A', 3, id)).toEqual({ drop: 'A is in this chain already (A → B → A)' });
    const abc = { id: 'x', hop: 2, visited: ['A', 'B', 'C'] };
    expect(nextChain(abc, 'C', 'A', 9, id)).toMatchObject({ drop: expect.stringContaining('A → B → C → A') });
    expect(nextChain(abc, 'C', 'D', 2, id)).toEqual({ drop: 'the chain has made 2 of its 2 hops' });
  });
  it('a new route that closes a cycle is known', () => {
    const routes = [
      { source: 'A', target: 'B' },
      { source: 'B', target: 'C' },
    ];
    expect(closesCycle(routes, { source: 'C', target: 'A' })).toBe(true);
    expect(closesCycle(routes, { source: 'C', target: 'D' })).toBe(false);
    expect(closesCycle(routes, { source: 'B', target: 'A' })).toBe(true);
  });
});

describe('payloads', () => {
  const vars = {
    last: 'the answer {diff}',
    diff: 'D',
    screen: 'S',
    name: 'writer',
    agent: 'Claude Code',
    cwd: '/p',
    state: 'stopped',
    hop: 2,
  };
  it('fills the places once (a value is never read as a place); unknown places stay', () => {
    expect(fill('{name} ({agent}) in {cwd}, hop {hop}: {last} {nope} {{x}', vars)).toBe(
      'writer (Claude Code) in /p, hop 2: the answer {diff} {nope} {x}',
    );
  });
  it('plain sends, built-in and user templates', () => {
    expect(templateText('', 'diff', {})).toBe('{diff}');
    expect(templateText('review', 'last', {})).toMatch(
      /^Review the following change made by \{name\} \(\{agent\}\) in \{cwd\}/,
    );
    expect(templateText('continue', 'last', {})).toContain('{last}');
    expect(templateText('mine', 'last', { mine: 'Check: {last}' })).toBe('Check: {last}');
    expect(templateText('toString', 'last', {})).toBeUndefined();
  });
  it('says where it comes from; a large one names its file and its first lines', () => {
    expect(provenance('writer', 'reviewer', 1, 3)).toBe('[mado route writer → reviewer · hop 1/3]');
    const big = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const out = spilled('[head]', '/s/r.txt', big, 3);
    expect(out).toBe(
      `[head]\nThe whole text (${Buffer.byteLength(big)} bytes) is in /s/r.txt; its first lines:\n\nline 0\nline 1\nline 2`,
    );
  });
});

/** A host with two terminals and a job; what it delivers is kept. */
function fakeHost(over: Partial<RouteBackend> = {}) {
  const ends: Record<string, RouteEnd> = {
    'term:1': { id: 'term:1', name: 'writer', agent: 'Claude Code', cwd: '/p', state: 'stopped' },
    'term:2': { id: 'term:2', name: 'reviewer', agent: 'Codex', cwd: '/p', state: 'idle' },
    'job:0000000c': { id: 'job:0000000c', name: 'third', agent: 'Claude Code', cwd: '/q', state: 'idle' },
  };
  const delivered: { target: string; text: string }[] = [];
  const said: string[] = [];
  const held: string[] = [];
  let answer = 'Done: fixed the parser.';
  const host: RouteBackend = {
    end: (id) => ends[id],
    targetExists: (t) => t in ends || t.startsWith('file:'),
    answer: async () => answer,
    screen: async () => 'the screen',
    diff: async () => 'diff --git a/x b/x',
    deliver: async (target, text) => {
      delivered.push({ target, text });
      return '';
    },
    review: async (_r, text) => text,
    spill: () => '/state/routes/r.txt',
    fired: () => undefined,
    held: (e) => held.push(e.reason),
    say: (m) => said.push(m),
    changed: () => undefined,
    ...over,
  };
  return { host, ends, delivered, said, held, setAnswer: (a: string) => (answer = a) };
}

describe('the route engine', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, tick: (ms: number) => (t += ms) };
  };

  it('sends the finished answer with its provenance, once per turn, not faster than every 2 s', async () => {
    const h = fakeHost();
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: 'term:2' });
    await e.finished('term:1', 'done');
    expect(h.delivered).toEqual([
      { target: 'term:2', text: '[mado route writer → reviewer · hop 1/3]\nDone: fixed the parser.' },
    ]);
    h.setAnswer('Second answer.');
    c.tick(500);
    await e.finished('term:1', 'done');
    expect(h.delivered).toHaveLength(1);
    expect(h.held).toContain('less than 2 s since it last fired');
    c.tick(2000);
    await e.finished('term:1', 'done');
    expect(h.delivered[1]!.text).toContain('Second answer.');
  });

  it('a turn that ends less than 2 s after the last firing is sent once the 2 s are over, once (not lost)', async () => {
    vi.useFakeTimers();
    try {
      const h = fakeHost();
      const e = new RouteEngine(h.host, undefined, () => Date.now());
      e.add({ source: 'term:1', target: 'term:2' });
      await e.finished('term:1', 'done');
      h.setAnswer('Second answer.');
      await vi.advanceTimersByTimeAsync(1300);
      await e.finished('term:1', 'done');
      expect(h.delivered).toHaveLength(1);
      expect(h.held).toContain('less than 2 s since it last fired');
      await vi.advanceTimersByTimeAsync(699);
      expect(h.delivered).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(h.delivered.map((d) => d.text.split('\n')[1])).toEqual(['Done: fixed the parser.', 'Second answer.']);
      // Two within the gap: the later one goes, once.
      h.setAnswer('Third answer.');
      await vi.advanceTimersByTimeAsync(500);
      await e.finished('term:1', 'done');
      h.setAnswer('Fourth answer.');
      await vi.advanceTimersByTimeAsync(500);
      await e.finished('term:1', 'done');
      await vi.advanceTimersByTimeAsync(5000);
      expect(h.delivered.map((d) => d.text.split('\n')[1])).toEqual([
        'Done: fixed the parser.',
        'Second answer.',
        'Fourth answer.',
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("asks for the answer of the turn that ended (bounded by the end of the turn before); no answer of it is said by the ends' names, nothing sent", async () => {
    const turns: (number | undefined)[] = [];
    let recorded = true;
    const h = fakeHost({
      answer: async (_s, turn) => {
        turns.push(turn.since);
        if (!recorded) throw new Error('no answer recorded for this turn');
        return `answer after ${turn.since}`;
      },
    });
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: 'term:2' });
    const settle = (): Promise<void> => elapse(0);
    e.changed('term:1', 'idle', 'working', false);
    c.tick(3000);
    e.changed('term:1', 'working', 'stopped', true);
    await settle();
    c.tick(5000);
    e.changed('term:1', 'stopped', 'working', false);
    c.tick(3000);
    recorded = false;
    e.changed('term:1', 'working', 'completed', true);
    await settle();
    expect(turns).toEqual([1_000_000 - 5000, 1_003_000]);
    expect(h.delivered.map((d) => d.text)).toEqual(['[mado route writer → reviewer · hop 1/3]\nanswer after 995000']);
    expect(h.said).toContainEqual(
      expect.stringMatching(/^route \w+ \(writer → reviewer\): no answer recorded for this turn$/),
    );
  });

  it('refuses, when a route is made, a twin of a route, send=diff where there is no git work tree, and a file target under a link', async () => {
    const h = fakeHost({ diffProblem: (src) => (src === 'term:1' ? '/p is no git work tree' : undefined) });
    const e = new RouteEngine(h.host);
    const first = e.add({ source: 'term:1', target: 'term:2' });
    expect(() => e.add({ source: 'term:1', target: 'term:2' })).toThrow(`route ${first.id} does that already`);
    // Another kind of payload to the same target is another route.
    expect(() => e.add({ source: 'term:1', target: 'term:2', send: 'screen' })).not.toThrow();
    expect(() => e.add({ source: 'term:1', target: 'job:0000000c', send: 'diff' })).toThrow(
      'send=diff: /p is no git work tree',
    );
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-route-link-'));
    mkdirSync(path.join(dir, 'real'));
    symlinkSync(path.join(dir, 'real'), path.join(dir, 'linked'));
    expect(() => e.add({ source: 'term:1', target: `file:${path.join(dir, 'linked', 'notes.md')}` })).toThrow(
      `${path.join(dir, 'linked')} is a link`,
    );
    expect(() => e.add({ source: 'term:1', target: `file:${path.join(dir, 'real', 'notes.md')}` })).not.toThrow();
    expect(() => appendText(path.join(dir, 'linked', 'notes.md'), 'x')).toThrow('is a link');
    expect(existsSync(path.join(dir, 'real', 'notes.md'))).toBe(false);
  });

  it('routes that fire together to one target send one payload (the check and its record are one step)', async () => {
    const h = fakeHost();
    const e = new RouteEngine(h.host);
    // Two sources whose answers are the same text, fired at once, to one slow target.
    let slow = 0;
    h.host.deliver = async (target, text) => {
      await elapse(20 + slow++ * 5);
      h.delivered.push({ target, text });
      return '';
    };
    e.add({ source: 'term:1', target: 'term:2' });
    e.add({ source: 'job:0000000c', target: 'term:2' });
    await Promise.all([e.finished('term:1', 'done'), e.finished('job:0000000c', 'done'), e.finished('term:1', 'done')]);
    expect(h.delivered).toHaveLength(1);
    expect(h.said.filter((m) => m.includes('not sent: the same text'))).toHaveLength(1);
  });

  it('does not send the same text to a target twice in a row, nor fire on what it does not listen to', async () => {
    const h = fakeHost();
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: 'term:2' });
    await e.finished('term:1', 'done');
    c.tick(3000);
    await e.finished('term:1', 'done');
    expect(h.delivered).toHaveLength(1);
    // Said, once, not dropped without a word.
    expect(h.held).toContain('not sent: the same text as the last one term:2 was given');
    expect(h.said.filter((m) => m.includes('the same text'))).toHaveLength(1);
    c.tick(3000);
    h.setAnswer('new');
    await e.finished('term:1', 'failed');
    await e.finished('term:1', 'waiting');
    expect(h.delivered).toHaveLength(1);
    e.add({ source: 'term:1', target: 'job:0000000c', on: 'turn' });
    await e.finished('term:1', 'failed');
    expect(h.delivered.map((d) => d.target)).toEqual(['term:2', 'job:0000000c']);
  });

  it('A → B → A stops at the chain, whatever the hops; user input starts a new chain', async () => {
    const h = fakeHost();
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: 'term:2' });
    expect(() => e.add({ source: 'term:2', target: 'term:1' })).toThrow(
      'this route closes a cycle (writer leads back to reviewer); give hops=N to allow it',
    );
    // The daemon's routes are given their hops as mado route add takes them.
    const d = new RouteEngine({ ...h.host, hopsOption: '--hops N' });
    d.add({ source: 'term:1', target: 'term:2' });
    expect(() => d.add({ source: 'term:2', target: 'term:1' })).toThrow(
      'this route closes a cycle (writer leads back to reviewer); give --hops N to allow it',
    );
    e.add({ source: 'term:2', target: 'term:1', hops: 5 });
    await e.finished('term:1', 'done');
    c.tick(3000);
    h.setAnswer('Review: looks good.');
    await e.finished('term:2', 'done');
    expect(h.delivered).toHaveLength(1);
    expect(h.said.at(-1)).toMatch(/not sent: term:1 is in this chain already \(term:1 → term:2 → term:1\)/);
    // The user typed into B: its next turn is a chain of its own.
    e.userInput('term:2');
    c.tick(3000);
    await e.finished('term:2', 'done');
    expect(h.delivered.map((d) => d.target)).toEqual(['term:2', 'term:1']);
  });

  it("a job's chain is the one its host keeps: a payload another place delivered goes on, and a cycle through both places stops", async () => {
    // What the job's host was given (by the daemon's routes, or another Neovim's), as the backend reads it.
    const kept = new Map<string, Chain>();
    const h = fakeHost({
      chainOf: (entry) => (entry.startsWith('job:') ? { chain: kept.get(entry) } : undefined),
    });
    const deliver = h.host.deliver;
    h.host.deliver = async (target, text, busyMs, chain) => {
      if (target.startsWith('job:')) kept.set(target, chain);
      return deliver(target, text, busyMs, chain);
    };
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    // The daemon's route job → term:1 gave the job's payload to it (hop 1 of the chain that began at term:2).
    kept.set('job:0000000c', { id: 'd1', hop: 1, visited: ['term:2', 'job:0000000c'] });
    e.add({ source: 'job:0000000c', target: 'term:1' });
    e.add({ source: 'term:1', target: 'term:2', hops: 5 });
    await e.finished('job:0000000c', 'done');
    expect(h.delivered.at(-1)).toMatchObject({
      target: 'term:1',
      text: expect.stringMatching(/^\[mado route third → writer · hop 2\/3\]/),
    });
    c.tick(3000);
    await e.finished('term:1', 'done');
    expect(h.delivered).toHaveLength(1);
    expect(h.said.at(-1)).toMatch(
      /not sent: term:2 is in this chain already \(term:2 → job:0000000c → term:1 → term:2\)/,
    );
    // What this place delivers to a job is kept by its host, not here: the user's reply there ends it.
    e.add({ source: 'term:2', target: 'job:0000000c', hops: 5 });
    c.tick(3000);
    await e.finished('term:2', 'done');
    expect(kept.get('job:0000000c')).toMatchObject({ hop: 1, visited: ['term:2', 'job:0000000c'] });
    expect(kept.get('job:0000000c')!.id).not.toBe('d1');
    kept.delete('job:0000000c');
    c.tick(3000);
    h.setAnswer('A new turn.');
    await e.finished('job:0000000c', 'done');
    expect(h.delivered.at(-1)).toMatchObject({
      target: 'term:1',
      text: expect.stringMatching(/hop 1\/3\]\nA new turn\.$/),
    });
  });

  it('refuses what is no route, saying why', () => {
    const e = new RouteEngine(fakeHost().host);
    expect(() => e.add({ source: 'term:1', target: 'term:1' })).toThrow('a route to itself is none');
    expect(() => e.add({ source: 'term:9', target: 'term:1' })).toThrow("no agent 'term:9'");
    expect(() => e.add({ source: 'buf:3', target: 'term:1' })).toThrow("a route's source is a terminal or a job");
    expect(() => e.add({ source: 'term:1', target: 'term:7' })).toThrow("no target 'term:7'");
    expect(() => e.add({ source: 'term:1', target: 'term:2', on: 'sometimes' })).toThrow(
      'on=sometimes is none of done, turn, waiting',
    );
    expect(() => e.add({ source: 'term:1', target: 'term:2', send: 'all' })).toThrow(
      'send=all is none of last, diff, screen',
    );
    expect(() => e.add({ source: 'term:1', target: 'term:2', template: 'nope' })).toThrow("no template 'nope'");
    expect(() => e.add({ source: 'term:1', target: 'term:2', hops: 0 })).toThrow('hops must be 1 to 20');
  });

  it('once goes after it fired; review may edit or drop; a large payload goes to a file; templates fill', async () => {
    const h = fakeHost({
      review: async (_r: Route, text: string) => (text.includes('drop me') ? null : text.replace('parser', 'lexer')),
    });
    const c = clock();
    const e = new RouteEngine(
      h.host,
      { templates: { check: 'Check {name} at hop {hop}: {last}' }, maxBytes: 200, busyMs: 1000 },
      c.now,
    );
    const once = e.add({ source: 'term:1', target: 'term:2', once: true, review: true, template: 'check' });
    await e.finished('term:1', 'done');
    expect(h.delivered[0]!.text).toBe(
      '[mado route writer → reviewer · hop 1/3]\nCheck writer at hop 1: Done: fixed the lexer.',
    );
    expect(e.list().map((r) => r.id)).not.toContain(once.id);
    e.add({ source: 'term:1', target: 'job:0000000c', review: true });
    h.setAnswer('drop me');
    c.tick(3000);
    await e.finished('term:1', 'done');
    expect(h.delivered).toHaveLength(1);
    expect(h.held).toContain('dropped in review');
    e.clear();
    e.add({ source: 'term:1', target: 'file:/tmp/x' });
    h.setAnswer('x'.repeat(500));
    c.tick(3000);
    await e.finished('term:1', 'done');
    expect(h.delivered.at(-1)!.text).toMatch(
      /^\[mado route writer → file:\/tmp\/x · hop 1\/3\]\nThe whole text \(\d+ bytes\) is in \/state\/routes\/r\.txt; its first lines:/,
    );
  });

  it("review: the diff and the answer; a part that is not the route's send may fail (left empty), its send may not", async () => {
    const h = fakeHost({ diff: async () => Promise.reject(new Error('git diff in /p: not a git repository')) });
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: 'term:2', template: 'review' });
    await e.finished('term:1', 'done');
    expect(h.delivered[0]!.text).toBe(
      '[mado route writer → reviewer · hop 1/3]\nReview the following change made by writer (Claude Code) in /p. Point out bugs, risks and missing tests; be specific, cite the lines.\n\nDone: fixed the parser.',
    );
    e.clear();
    e.add({ source: 'term:1', target: 'job:0000000c', send: 'diff' });
    c.tick(3000);
    await e.finished('term:1', 'done');
    expect(h.delivered).toHaveLength(1);
    expect(h.said.at(-1)).toMatch(/git diff in \/p: not a git repository/);
  });

  it('a target that is gone removes its routes with one message; pause holds every route', async () => {
    const h = fakeHost();
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: 'term:2' });
    e.pause(true);
    await e.finished('term:1', 'done');
    expect(h.delivered).toHaveLength(0);
    e.pause(false);
    delete h.ends['term:2'];
    await e.finished('term:1', 'done');
    expect(e.list()).toEqual([]);
    expect(h.said).toHaveLength(1);
    expect(h.said[0]).toMatch(/^route \w+ removed: its target term:2 is gone$/);
  });
});

describe('a route to a target whose host is offline', () => {
  const clock = () => {
    let t = 1_000_000;
    return { now: () => t, tick: (ms: number) => (t += ms) };
  };
  const FAR = 'job:box:0000000b';

  it('keeps each turn’s payload, in order, and delivers each once when the host is back; says what it does', async () => {
    let down = true;
    const h = fakeHost({
      targetExists: () => true,
      end: (id) =>
        id === 'term:1'
          ? { id, name: 'writer', agent: 'Claude Code', cwd: '/p', state: 'stopped' }
          : id === FAR
            ? { id, name: 'far', agent: 'Codex', cwd: '/q', state: 'idle' }
            : undefined,
    });
    const deliver = h.host.deliver;
    h.host.deliver = async (target, text, busyMs, chain) => {
      if (down) throw new TargetOffline('box is offline: the link to box ended with status 255');
      return deliver(target, text, busyMs, chain);
    };
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    e.add({ source: 'term:1', target: FAR });
    for (const answer of ['First answer.', 'Second answer.', 'Third answer.']) {
      h.setAnswer(answer);
      await e.finished('term:1', 'done');
      c.tick(2500);
    }
    expect(h.delivered).toEqual([]);
    expect(e.parkedCount).toBe(3);
    expect(h.held.filter((r) => r === 'target offline')).toHaveLength(3);
    expect(h.said[0]).toMatch(
      /^route \w+ \(writer → far\): box is offline: the link to box ended with status 255; kept, sent once it is back \(10 min at most\)$/,
    );
    // Still down: nothing goes, nothing is lost.
    await e.retryParked();
    expect(h.delivered).toEqual([]);
    expect(e.parkedCount).toBe(3);
    down = false;
    await e.retryParked();
    expect(h.delivered.map((d) => d.text.split('\n')[1])).toEqual(['First answer.', 'Second answer.', 'Third answer.']);
    expect(h.said.filter((m) => /delivered to far, back online/.test(m))).toHaveLength(3);
    await e.retryParked();
    expect(h.delivered).toHaveLength(3);
    expect(e.parkedCount).toBe(0);
    // Online again: the next turn goes at once.
    h.setAnswer('Fourth answer.');
    await e.finished('term:1', 'done');
    expect(h.delivered.map((d) => d.text.split('\n')[1])).toEqual([
      'First answer.',
      'Second answer.',
      'Third answer.',
      'Fourth answer.',
    ]);
  });

  it('gives up past busyMs, with the file that holds the text; keeps at most 8 for one target; a removed route’s is dropped, said', async () => {
    const spilled: string[] = [];
    const h = fakeHost({
      targetExists: () => true,
      end: (id) =>
        id === 'term:1' ? { id, name: 'writer', agent: 'Claude Code', cwd: '/p', state: 'stopped' } : undefined,
      deliver: async () => {
        throw new TargetOffline('box is offline');
      },
      spill: (_r, text) => {
        spilled.push(text);
        return '/state/routes/kept.txt';
      },
    });
    const c = clock();
    const e = new RouteEngine(h.host, undefined, c.now);
    const r = e.add({ source: 'term:1', target: FAR });
    for (let i = 1; i <= 9; i++) {
      h.setAnswer(`Answer ${i}.`);
      await e.finished('term:1', 'done');
      c.tick(2500);
    }
    expect(e.parkedCount).toBe(MAX_PARKED);
    expect(h.said.at(-1)).toMatch(/not sent: 8 payloads already wait for job:box:0000000b/);
    c.tick(DEFAULT_SETTINGS.busyMs);
    await e.retryParked();
    // The oldest gave up (the host stayed offline), the rest wait behind it, to give up in turn.
    expect(spilled).toHaveLength(1);
    expect(spilled[0]).toContain('Answer 1.');
    expect(h.said.at(-1)).toMatch(
      /gave up: job:box:0000000b stayed offline 10 min \(box is offline\); the text is in \/state\/routes\/kept\.txt$/,
    );
    expect(e.parkedCount).toBe(MAX_PARKED - 1);
    e.remove(r.id);
    await e.retryParked();
    expect(e.parkedCount).toBe(0);
    expect(h.said.filter((m) => /was removed: its payload kept for job:box:0000000b is dropped/.test(m))).toHaveLength(
      MAX_PARKED - 1,
    );
  });
});

describe("routes' files, read and written as hostile input", () => {
  it("the daemon's routes.json: a route that is none, a huge file, a folder, nonsense read as no route", async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, statSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { readRoutes, writeRoutes, routesFile } = await import('../../../src/routes/store.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-routes-file-'));
    const good = {
      id: 'ab12cd',
      source: 'job:0000000a',
      target: 'job:0000000b',
      targetName: 'reviewer',
      on: 'done',
      send: 'last',
      template: '',
      hops: 3,
      once: false,
      review: false,
      paused: false,
      createdAt: 1,
    };
    writeRoutes(dir, [good as Route]);
    expect(statSync(routesFile(dir)).mode & 0o777).toBe(0o600);
    expect(readRoutes(dir)).toEqual([good]);
    const bad = [
      { ...good, id: '../x' },
      { ...good, source: 'term:3' },
      { ...good, target: 'file:relative/path' },
      { ...good, target: 'buf:4' },
      { ...good, on: 'sometimes' },
      { ...good, hops: 0 },
      { ...good, hops: 1e9 },
      'nonsense',
      null,
    ];
    writeFileSync(
      routesFile(dir),
      JSON.stringify({ version: 1, routes: [...bad, { ...good, review: true, id: 'ok2' }] }),
    );
    // Only the good one is kept; a daemon's route never opens a review.
    expect(readRoutes(dir)).toEqual([{ ...good, id: 'ok2', review: false }]);
    writeFileSync(routesFile(dir), JSON.stringify({ version: 2, routes: [good] }));
    expect(readRoutes(dir)).toEqual([]);
    writeFileSync(routesFile(dir), `{"version":1,"routes":[${'0,'.repeat(200_000)}0]}`);
    expect(readRoutes(dir)).toEqual([]);
    const other = mkdtempSync(path.join(tmpdir(), 'madohub-routes-file-'));
    mkdirSync(routesFile(other));
    expect(readRoutes(other)).toEqual([]);
  });

  it('a file target takes regular files only: a FIFO without a reader or a link is refused at once, nothing waits', async () => {
    const { mkdtempSync, writeFileSync, symlinkSync, readFileSync, statSync } = await import('node:fs');
    const { execFileSync } = await import('node:child_process');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { appendText } = await import('../../../src/routes/io.js');
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-route-target-'));
    const file = path.join(dir, 'notes.md');
    appendText(file, 'one\n');
    appendText(file, 'two\n');
    expect(readFileSync(file, 'utf8')).toBe('one\ntwo\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const fifo = path.join(dir, 'pipe');
    execFileSync('mkfifo', [fifo]);
    const t = Date.now();
    expect(() => appendText(fifo, 'x')).toThrow();
    expect(Date.now() - t).toBeLessThan(1000);
    const secret = path.join(dir, 'secret');
    writeFileSync(secret, 'keep');
    const link = path.join(dir, 'link');
    symlinkSync(secret, link);
    expect(() => appendText(link, 'x')).toThrow();
    expect(readFileSync(secret, 'utf8')).toBe('keep');
  });
});
