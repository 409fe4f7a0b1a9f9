import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  copilot,
  copilotEvent,
  copilotHome,
  CopilotRecords,
  eventsFile,
  sessionOfPids,
} from '../../../src/agents/copilot.js';
import { agentOfProcess, detectScreen, draftOf, identifyScreen, promptOf } from '../../../src/agents/index.js';
import { commandLine, DEFAULT_TEMPLATES } from '../../../src/jobs/templates.js';
import type { RecordLog } from '../../../src/records/follow.js';
import type { FolderWatcher } from '../../../src/records/folders.js';
import type { ProcessInfo, RecordSignal } from '../../../src/shared/types.js';
import { agentScreens, following, recordsOf, stateRuns, typeOf, until } from './fixtures.js';

const fixtures = agentScreens('copilot');
const events = recordsOf('copilot-events.jsonl');
const screenOf = (name: string): { lines: string[]; title: string } => ({
  lines: fixtures[name]!.lines,
  title: fixtures[name]!.title,
});
const proc = (comm: string, argv: string[]): ProcessInfo => ({ pid: 2, ppid: 1, comm, argv, exe: argv[0]! });

describe('GitHub Copilot CLI: its screens, as 1.0.102 draws them', () => {
  it.each(Object.keys(fixtures))('%s', (name) => {
    const f = fixtures[name]!;
    expect(identifyScreen(screenOf(name))).toBe('copilot');
    expect(detectScreen(screenOf(name))).toMatchObject({ agent: f.expect.agent, state: f.expect.state });
  });

  it('says what it waits for, and why a turn failed', () => {
    expect(detectScreen(screenOf('copilot-real-shell-approval')).detail).toMatch(/Do you want to run this command\?/);
    expect(detectScreen(screenOf('copilot-real-question')).detail).toBe('a question');
    expect(detectScreen(screenOf('copilot-real-error')).detail).toMatch(/Failed to get response from the AI model/);
    expect(detectScreen(screenOf('copilot-real-interrupted')).detail).toBe('interrupted');
  });

  it('the first prompt it echoes once sent (the time at its right and a scroll bar left out), and a draft in its input box', () => {
    expect(promptOf('copilot', fixtures['copilot-real-done']!.lines)).toBe('say hello');
    expect(promptOf('copilot', fixtures['copilot-real-ctrl-c']!.lines)).toBe('slow again');
    expect(draftOf('copilot', fixtures['copilot-real-draft']!.lines)).toBe('say hello');
    expect(draftOf('copilot', fixtures['copilot-real-idle']!.lines)).toBeUndefined();
  });

  it('its process: the node loader, and the native binary it runs (whose comm is MainThread)', () => {
    expect(agentOfProcess(proc('node', ['node', '/usr/lib/node_modules/.bin/copilot', '--session-id', 'x']))).toBe(
      'copilot',
    );
    expect(agentOfProcess(proc('node', ['node', '/n/node_modules/@github/copilot/npm-loader.js']))).toBe('copilot');
    expect(
      agentOfProcess(proc('MainThread', ['/n/node_modules/@github/copilot-linux-x64/copilot', '--resume', 'x'])),
    ).toBe('copilot');
    expect(agentOfProcess(proc('node', ['node', '/n/node_modules/copilot-helper/index.js']))).toBeUndefined();
  });
});

describe('GitHub Copilot CLI: its records', () => {
  it('the events of a real session, replayed: each turn’s states in order', () => {
    // say hello; slow please; run (approved); write (Esc on its approval: interrupted); fail (API 500);
    // slow again; slow three (Ctrl+C); ask me (a malformed question, refused at once); ask me again
    // (answered); run it once more (approved with 2).
    expect(stateRuns(events, copilotEvent)).toEqual([
      'working',
      'completed',
      'working',
      'completed',
      'working',
      'waiting',
      'working',
      'completed',
      'working',
      'waiting',
      'working',
      'failed',
      'working',
      'failed',
      'working',
      'completed',
      'working',
      'failed',
      'working',
      'waiting',
      'working',
      'completed',
      'working',
      'waiting',
      'working',
      'completed',
      'working',
      'waiting',
      'working',
      'completed',
    ]);
  });

  it('what each state says', () => {
    const said = (type: string): RecordSignal | null => copilotEvent(events.find((e) => typeOf(e) === type));
    expect(said('permission.requested')).toMatchObject({
      state: 'waiting',
      detail: 'touch mock-ran.txt',
      source: 'jsonl-watcher',
    });
    expect(said('session.error')).toMatchObject({
      state: 'failed',
      detail: expect.stringMatching(/^Failed to get response from the AI model/),
    });
    expect(said('abort')).toMatchObject({ state: 'failed', detail: 'interrupted' });
    expect(said('assistant.message')).toMatchObject({
      state: 'completed',
      detail: expect.stringContaining('You said:'),
    });
    expect(said('assistant.turn_end')).toBeNull();
    for (const v of [null, 7, 'x', [], { type: 3 }, { type: 'permission.requested', data: 'no' }])
      expect(() => copilotEvent(v)).not.toThrow();
  });

  it('a finished answer: the last message with text after the last prompt', () => {
    const upTo = (n: number): unknown[] => events.slice(0, n);
    const firstEnd = events.findIndex((e) => typeOf(e) === 'assistant.turn_end');
    expect(copilot.answerOf!(upTo(firstEnd + 1))?.text).toMatch(/^You said:/);
    expect(copilot.answerOf!(events)?.text).toBe('Done: ran it.');
    // A prompt with no answer yet has none.
    expect(copilot.answerOf!([...events, { type: 'user.message', data: { content: 'next' } }])).toBeUndefined();
  });

  it('its folder, a job’s events file, and no path out of it', () => {
    expect(copilotHome({ HOME: '/h' })).toBe('/h/.copilot');
    expect(copilotHome({ HOME: '/h', COPILOT_HOME: '/c' })).toBe('/c');
    expect(copilot.jobRecordFile!({ cwd: '/p', sessionId: 'abc', resumeSessionId: null }, { HOME: '/h' })).toBe(
      '/h/.copilot/session-state/abc/events.jsonl',
    );
    expect(copilot.jobRecordFile!({ cwd: '/p', sessionId: 'abc', resumeSessionId: 'def' }, { HOME: '/h' })).toBe(
      '/h/.copilot/session-state/def/events.jsonl',
    );
    expect(eventsFile('/h', '../../etc')).toBeUndefined();
    expect(eventsFile('/h', '..')).toBeUndefined();
  });

  it('the session of a process: the folder that holds its inuse.<pid>.lock', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-copilot-'));
    for (const [id, pid] of [
      ['a-1', 100],
      ['b-2', 200],
    ] as const) {
      mkdirSync(path.join(home, 'session-state', id), { recursive: true });
      writeFileSync(path.join(home, 'session-state', id, `inuse.${pid}.lock`), '');
    }
    expect(sessionOfPids(home, [5, 200])).toBe('b-2');
    expect(sessionOfPids(home, [300])).toBeUndefined();
    expect(sessionOfPids(path.join(home, 'none'), [100])).toBeUndefined();
  });

  it('follows the events of the session its process holds, once the lock is there', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-copilot-'));
    mkdirSync(path.join(home, 'session-state'), { recursive: true });
    const make = (folders: FolderWatcher, emit: (s: RecordSignal) => void, log: RecordLog): CopilotRecords =>
      new CopilotRecords(home, [4242], folders, new Set(), emit, log);
    await following(make, async (follower, got) => {
      expect(follower.recordFile).toBeUndefined();
      const dir = path.join(home, 'session-state', 'sess-1');
      mkdirSync(dir);
      writeFileSync(path.join(dir, `inuse.4242.lock`), '');
      const file = path.join(dir, 'events.jsonl');
      writeFileSync(file, '');
      await until(
        () => follower.recordFile === file,
        () => follower.poke(),
      );
      expect(follower.recordFile).toBe(file);
      expect(follower.sessionId).toBe('sess-1');
      const upToWaiting = events.findIndex((e) => typeOf(e) === 'permission.requested');
      appendFileSync(
        file,
        `${events
          .slice(0, upToWaiting + 1)
          .map((e) => JSON.stringify(e))
          .join('\n')}\n`,
      );
      await until(
        () => got.at(-1)?.state === 'waiting',
        () => follower.poke(),
      );
      expect(got.at(-1)).toMatchObject({ state: 'waiting', detail: 'touch mock-ran.txt' });
    });
  });

  it('a job runs it with its own session id, typed its first prompt, resumed by id', () => {
    const t = DEFAULT_TEMPLATES.copilot!;
    expect(commandLine(t, 'fix it', undefined, false, 'S')).toEqual(['copilot', '--session-id', 'S']);
    expect(commandLine(t, '', { mode: 'id', id: 'R' }, false, 'S')).toEqual(['copilot', '--resume', 'R']);
    expect(commandLine(t, '', { mode: 'continue' }, false)).toEqual(['copilot', '--continue']);
    expect(copilot.menuKeys!(2, 1)).toBe('2');
  });
});
