// Continue CLI 1.5.47 (`cn`): its real screens at 120×40, 80×24 and 60×20, its process, its job
// template, and its session file (real files of a captured session, taken after each step of it).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cn, cnHome, cnSession, cnUsage, CnRecords, findCnSession } from '../../../src/agents/cn.js';
import { agentOfProcess, detectScreen, draftOf, identifyScreen } from '../../../src/agents/index.js';
import { commandLine, DEFAULT_TEMPLATES } from '../../../src/jobs/templates.js';
import { followJsonDocument } from '../../../src/records/follow.js';
import type { RecordLog } from '../../../src/records/follow.js';
import { FolderWatcher } from '../../../src/records/folders.js';
import { UsageCounter } from '../../../src/usage/tally.js';
import { usageView } from '../../../src/usage/view.js';
import type { RecordSignal } from '../../../src/shared/types.js';
import { agentScreens, kindsAt, following, until } from './fixtures.js';

const fixtures = agentScreens('cn');
const screenOf = (name: string): { lines: string[]; title: string } => ({
  lines: fixtures[name]!.lines,
  title: fixtures[name]!.title,
});
const RECORDS = path.join(__dirname, '../../fixtures/records/cn');
/** The session file as it stood after each step of the captured session. */
const STEPS = ['1-prompt', '2-answered', '3-approval', '4-tool-done', '5-refused', '6-question', '7-answered'];
const step = (name: string): unknown => JSON.parse(readFileSync(path.join(RECORDS, `${name}.json`), 'utf8'));

describe('Continue CLI: its screens, as 1.5.47 draws them', () => {
  it.each(Object.keys(fixtures))('%s', (name) => {
    const f = fixtures[name]!;
    expect(identifyScreen(screenOf(name))).toBe('cn');
    expect(detectScreen(screenOf(name))).toMatchObject({ agent: f.expect.agent, state: f.expect.state });
  });

  it('a whole session at each size: every kind of screen, at 120, 80 and 60 columns', () => {
    const kinds = (prefix: string): string[] => kindsAt(fixtures, prefix);
    // A job's screen (its Enter taken as a new line) is of 120 columns alone.
    const at120 = kinds('cn-real-').filter((k) => k !== 'enter-lost');
    expect(at120).toEqual(
      expect.arrayContaining(['working', 'shell-approval', 'edit-approval', 'question', 'interrupted', 'error']),
    );
    expect(kinds('cn-real-80-')).toEqual(at120);
    expect(kinds('cn-real-60-')).toEqual(at120);
  });

  it('an approval or a question wins over the spinner still turning above it; an older turn’s error is past', () => {
    for (const size of ['', '80-', '60-']) {
      expect(detectScreen(screenOf(`cn-real-${size}shell-approval`))).toMatchObject({ rule: 'cn/approval' });
      expect(detectScreen(screenOf(`cn-real-${size}question`))).toMatchObject({ rule: 'cn/question' });
    }
    // The answered question's screen still shows the 400 of two turns before, above its last block.
    const answered = screenOf('cn-real-answered');
    expect(answered.lines.some((l) => l.startsWith('Error: 400'))).toBe(true);
    expect(detectScreen(answered)).toMatchObject({ state: 'idle' });
  });

  it('a draft is what its input box holds, not its placeholder', () => {
    expect(draftOf('cn', fixtures['cn-real-draft']!.lines)).toBe('please say hi');
    expect(draftOf('cn', fixtures['cn-real-idle']!.lines)).toBeUndefined();
    // A job's prompt whose Enter became a new line of the input: it stands there, its Enter goes again.
    expect(draftOf('cn', fixtures['cn-real-enter-lost']!.lines)).toBe('now run');
  });

  it('its process: node running its launcher `cn` or its cn.js', () => {
    const launcher = ['node', '/tmp/agents-cn/node_modules/.bin/cn', '--config', '/h/.continue/config.yaml'];
    expect(agentOfProcess({ pid: 13321, ppid: 1, comm: 'node', argv: launcher, exe: '/usr/bin/node' })).toBe('cn');
    const global = ['node', '/usr/lib/node_modules/@continuedev/cli/dist/cn.js'];
    expect(agentOfProcess({ pid: 2, ppid: 1, comm: 'node', argv: global, exe: '/usr/bin/node' })).toBe('cn');
    expect(agentOfProcess({ pid: 2, ppid: 1, comm: 'node', argv: ['node', '/x/cnn.js'], exe: '/usr/bin/node' })).toBe(
      undefined,
    );
  });

  it('its job types its first prompt and continues its last session (it resumes no session by id)', () => {
    const t = DEFAULT_TEMPLATES.cn!;
    expect(t).toMatchObject({ command: ['cn'], prompt: 'type' });
    expect(commandLine(t, 'fix it', undefined, false, 'S')).toEqual(['cn']);
    expect(commandLine(t, '', { mode: 'continue' }, false)).toEqual(['cn', '--resume']);
    expect(t.resume).toBeUndefined();
    expect(cn.env).toEqual({ names: [], prefixes: ['CONTINUE_'] });
  });
});

describe('Continue CLI: its session file', () => {
  it('each step of a real session, read whole: the turn under way, a tool asked or run, refused, the end', () => {
    const said = STEPS.map((s) => cnSession(step(s))?.signal);
    expect(said.map((s) => s && [s.state, s.detail])).toEqual([
      ['working', 'prompt'],
      ['completed', 'Slow answer to: tell me slow'],
      // Its approval is asked on the screen (its record says the call is `generated`).
      ['working', 'running tools'],
      ['completed', 'Done: ran it.'],
      ['failed', 'tool refused'],
      // Its question is asked on the screen (the call is `calling`).
      ['working', 'running tools'],
      ['completed', 'Done: ran it.'],
    ]);
    expect(said.every((s) => s?.source === 'jsonl-watcher')).toBe(true);
  });

  it('what is not a session says nothing', () => {
    for (const bad of [undefined, null, 3, 'x', {}, { history: 'x' }, { history: [null, 4] }])
      expect(cnSession(bad)?.signal ?? null).toBeNull();
  });

  it('what it spent: the session’s totals and Continue’s own cost; a prompt begins a turn', () => {
    const last = step('7-answered') as { history: unknown[]; usage: { totalCost: number; completionTokens: number } };
    const counter = new UsageCounter();
    for (const r of [...last.history, last]) {
      const reading = cnUsage(r);
      if (reading) expect(counter.add(reading)).toBeUndefined();
    }
    const u = usageView(counter.tally, () => undefined);
    expect(u.costUsd).toBeCloseTo(last.usage.totalCost, 9);
    expect(u.outputTokens).toBe(last.usage.completionTokens);
    expect(cnUsage({ message: { role: 'user', content: 'x' } })).toEqual({ kind: 'prompt' });
    expect(cnUsage({ message: { role: 'assistant', content: 'x' } })).toBeUndefined();
    expect(cnUsage({ history: [], usage: { promptTokens: -5, totalCost: Number.NaN } })).toMatchObject({
      kind: 'total',
      costUsd: 0,
      tokens: { inputTokens: 0 },
    });
  });

  it('its home: $CONTINUE_GLOBAL_DIR (a relative one from its folder), else ~/.continue', () => {
    expect(cnHome({ HOME: '/h' })).toBe('/h/.continue');
    expect(cnHome({ HOME: '/h', CONTINUE_GLOBAL_DIR: '/c' })).toBe('/c');
    expect(cnHome({ HOME: '/h', CONTINUE_GLOBAL_DIR: 'c' }, '/p')).toBe('/p/c');
  });

  it('the session of a process: the earliest of its folder from its start on, not another terminal’s', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-cn-'));
    mkdirSync(path.join(home, 'sessions'));
    const t0 = Date.parse('2026-12-07T06:26:00Z');
    const entry = (id: string, at: number, cwd = '/p'): object => ({
      sessionId: id,
      title: 'x',
      dateCreated: String(at),
      workspaceDirectory: cwd,
      messageCount: 1,
    });
    writeFileSync(
      path.join(home, 'sessions', 'sessions.json'),
      JSON.stringify([
        entry('old-1', t0 - 60_000),
        entry('next-3', t0 + 5000),
        entry('mine-2', t0 + 300),
        entry('else-4', t0 + 200, '/elsewhere'),
        entry('../up', t0 + 100),
      ]),
    );
    const file = (id: string): string => path.join(home, 'sessions', `${id}.json`);
    const place = { cwd: '/p', startedAt: t0 };
    expect(findCnSession(home, place, new Set())).toBe(file('mine-2'));
    expect(findCnSession(home, place, new Set([file('mine-2')]))).toBe(file('next-3'));
    expect(findCnSession(home, { cwd: '/q', startedAt: t0 }, new Set())).toBeUndefined();
    writeFileSync(path.join(home, 'sessions', 'sessions.json'), '{"not": "a list"}');
    expect(findCnSession(home, place, new Set())).toBeUndefined();
  });

  it('follows the session file its process begins, told once per change, each step in order', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-cn-'));
    const sessions = path.join(home, 'sessions');
    // This test's own process stands for Continue: its folder and start time find the file.
    const id = '442f7335-4128-4690-88d3-0e168d995589';
    const make = (folders: FolderWatcher, emit: (s: RecordSignal) => void, log: RecordLog): CnRecords =>
      new CnRecords({ CONTINUE_GLOBAL_DIR: home }, process.pid, folders, new Set(), emit, log);
    await following(make, async (follower, got) => {
      // No session until the first prompt: its folder is made then.
      mkdirSync(sessions);
      const f = path.join(sessions, `${id}.json`);
      copyFileSync(path.join(RECORDS, '1-prompt.json'), f);
      writeFileSync(
        path.join(sessions, 'sessions.json'),
        JSON.stringify([{ sessionId: id, dateCreated: String(Date.now()), workspaceDirectory: process.cwd() }]),
      );
      await until(
        () => follower.recordFile === f,
        () => follower.poke(),
      );
      expect(follower.sessionId).toBe(id);
      for (const [i, s] of STEPS.entries()) {
        copyFileSync(path.join(RECORDS, `${s}.json`), f);
        const want = cnSession(step(s))!.signal!;
        await until(
          () => got.length > 0 && got.at(-1)!.detail === want.detail && got.at(-1)!.state === want.state,
          () => follower.poke(),
        );
        // Read again (a poke reads at once): told once.
        follower.poke();
        expect(got.filter((g) => g.state === want.state && g.detail === want.detail).length).toBe(
          STEPS.slice(0, i + 1).filter((x) => {
            const w = cnSession(step(x))!.signal!;
            return w.state === want.state && w.detail === want.detail;
          }).length,
        );
      }
      // Read again unchanged (pokes, the re-read after a change): not parsed again.
      let parses = 0;
      const watcher = new FolderWatcher();
      const counting = followJsonDocument(
        f,
        watcher,
        (d) => {
          parses++;
          return cnSession(d);
        },
        () => undefined,
        () => undefined,
      );
      for (let i = 0; i < 5; i++) counting.poke();
      counting.stop();
      await watcher.close();
      expect(parses).toBe(1);
      // Caught mid-write (not JSON yet): nothing said until it is whole.
      const before = got.length;
      writeFileSync(f, '{"sessionId": "x", "hist');
      follower.poke();
      expect(got.length).toBe(before);
    });
  });
});
