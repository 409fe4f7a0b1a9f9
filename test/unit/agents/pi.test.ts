import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findSessionFile,
  pi,
  piAgentDir,
  piRecord,
  PiRecords,
  sessionFileOf,
  sessionFolder,
} from '../../../src/agents/pi.js';
import { agentOfProcess, detectScreen, draftOf, identifyScreen } from '../../../src/agents/index.js';
import { lastBlock } from '../../../src/detect/index.js';
import { commandLine, DEFAULT_TEMPLATES } from '../../../src/jobs/templates.js';
import type { RecordLog } from '../../../src/records/follow.js';
import type { FolderWatcher } from '../../../src/records/folders.js';
import type { ProcessInfo, RecordSignal } from '../../../src/shared/types.js';
import { agentScreens, following, recordsOf, stateRuns, until } from './fixtures.js';

const fixtures = agentScreens('pi');
const session = recordsOf('pi-session.jsonl');
const screenOf = (name: string): { lines: string[]; title: string } => ({
  lines: fixtures[name]!.lines,
  title: fixtures[name]!.title,
});
const linesOf = (name: string): string[] => fixtures[name]!.lines;

describe('Pi: its screens, as 0.73.1 draws them', () => {
  it.each(Object.keys(fixtures))('%s', (name) => {
    const f = fixtures[name]!;
    expect(identifyScreen(screenOf(name))).toBe('pi');
    expect(detectScreen(screenOf(name))).toMatchObject({ agent: f.expect.agent, state: f.expect.state });
  });

  it('the current turn is the last block above its input box: an older turn’s abort or error is past', () => {
    // The abort of an earlier turn stands higher on the screen; the last turn ran a tool and ended.
    expect(linesOf('pi-real-tool-done').some((l) => l === ' Operation aborted')).toBe(true);
    expect(detectScreen(screenOf('pi-real-tool-done'))).toMatchObject({ state: 'idle' });
    const lines = linesOf('pi-real-retrying');
    expect(lines[lastBlock(/^─{8,}$/, lines)]).toMatch(/Retrying \(3\/3\)/);
    expect(lastBlock(/^─{8,}$/, ['no box', 'here'])).toBe(0);
    expect(detectScreen(screenOf('pi-real-interrupted')).detail).toBe('interrupted');
    expect(detectScreen(screenOf('pi-real-error')).detail).toMatch(/Error: 400 Mock refuses this request/);
  });

  it('a draft is its input line between the rules, not its footer', () => {
    expect(draftOf('pi', linesOf('pi-real-draft'))).toBe('say hello');
    for (const name of ['pi-real-idle', 'pi-real-done', 'pi-real-working', 'pi-real-tool-done'])
      expect(draftOf('pi', linesOf(name))).toBeUndefined();
  });

  it('its process: it names itself `pi` (its command line too); node running its cli.js', () => {
    expect(
      agentOfProcess({ pid: 2, ppid: 1, comm: 'pi', argv: ['pi'], exe: '/usr/bin/node' } satisfies ProcessInfo),
    ).toBe('pi');
    expect(
      agentOfProcess({
        pid: 2,
        ppid: 1,
        comm: 'node',
        argv: ['node', '/n/node_modules/@mariozechner/pi-coding-agent/dist/cli.js'],
        exe: '/usr/bin/node',
      }),
    ).toBe('pi');
    expect(
      agentOfProcess({ pid: 2, ppid: 1, comm: 'node', argv: ['node', '/n/pizza.js'], exe: '/usr/bin/node' }),
    ).toBeUndefined();
  });
});

describe('Pi: its records', () => {
  it('the session of a real run, replayed: each turn’s states in order', () => {
    // say hello; slow please; slow again (Escape); run (a tool); write (a tool); an API error (400);
    // API 500 retried three times.
    expect(stateRuns(session, piRecord)).toEqual([
      'working',
      'completed',
      'working',
      'completed',
      'working',
      'failed',
      'working',
      'completed',
      'working',
      'completed',
      'working',
      'failed',
      'working',
      'failed',
    ]);
    const aborted = session.find((r) => piRecord(r)?.detail === 'interrupted');
    expect(piRecord(aborted)).toMatchObject({ state: 'failed', source: 'jsonl-watcher' });
    expect(piRecord(session.at(-1))).toMatchObject({ state: 'failed', detail: '500 Mock overloaded' });
    expect(piRecord(session[0])).toBeNull();
    for (const v of [null, 1, 'x', { type: 'message' }, { type: 'message', message: { role: 7 } }])
      expect(() => piRecord(v)).not.toThrow();
  });

  it('a finished answer: the last text after the last prompt', () => {
    const end = session.findIndex(
      (r) => piRecord(r)?.state === 'completed' && JSON.stringify(r).includes('Done: ran it.'),
    );
    expect(pi.answerOf!(session.slice(0, end + 1))?.text).toBe('Done: ran it.');
    expect(pi.answerOf!(session)).toBeUndefined();
  });

  it('its folders, as Pi names them', () => {
    expect(piAgentDir({ HOME: '/h' })).toBe('/h/.pi/agent');
    expect(piAgentDir({ HOME: '/h', PI_CODING_AGENT_DIR: '~/elsewhere' })).toBe('/h/elsewhere');
    expect(sessionFolder({ HOME: '/h' }, '/tmp/cap/piproj')).toBe('/h/.pi/agent/sessions/--tmp-cap-piproj--');
    expect(sessionFolder({ HOME: '/h', PI_CODING_AGENT_SESSION_DIR: '/s' }, '/p')).toBe('/s');
  });

  it('the session file a process began: its folder’s, from its start on, not another terminal’s; and by id', () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'madohub-pi-'));
    const t0 = Date.parse('2026-12-01T19:02:00Z');
    const file = (at: number, id: string, cwd = '/p'): string => {
      const f = path.join(folder, `${new Date(at).toISOString().replace(/[:.]/g, '-')}_${id}.jsonl`);
      writeFileSync(
        f,
        `${JSON.stringify({ type: 'session', version: 3, id, timestamp: new Date(at).toISOString(), cwd })}\n`,
      );
      return f;
    };
    file(t0 - 60_000, 'old-1');
    const mine = file(t0 + 300, 'mine-2');
    const next = file(t0 + 5000, 'next-3');
    file(t0 + 200, 'else-4', '/elsewhere');
    expect(findSessionFile(folder, { cwd: '/p', startedAt: t0 }, new Set())).toBe(mine);
    expect(findSessionFile(folder, { cwd: '/p', startedAt: t0 }, new Set([mine]))).toBe(next);
    expect(sessionFileOf(folder, 'next-3')).toBe(next);
    expect(sessionFileOf(folder, '../x')).toBeUndefined();
  });

  it('follows the session file its process begins once it is there', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-pi-'));
    const env = { HOME: home };
    // This test's own process stands for Pi: its folder and start time find the file.
    const folder = sessionFolder(env, process.cwd());
    mkdirSync(folder, { recursive: true });
    const make = (folders: FolderWatcher, emit: (s: RecordSignal) => void, log: RecordLog): PiRecords =>
      new PiRecords(env, process.pid, folders, new Set(), emit, log);
    await following(make, async (follower, got) => {
      const f = path.join(folder, `2026-12-01T19-02-25-194Z_01a232fc-9aa9.jsonl`);
      writeFileSync(
        f,
        `${JSON.stringify({ type: 'session', version: 3, id: '01a232fc-9aa9', timestamp: new Date().toISOString(), cwd: process.cwd() })}\n`,
      );
      await until(
        () => follower.recordFile === f,
        () => follower.poke(),
      );
      expect(follower.sessionId).toBe('01a232fc-9aa9');
      appendFileSync(f, `${JSON.stringify(session[3])}\n`);
      await until(
        () => got.at(-1)?.state === 'working',
        () => follower.poke(),
      );
      expect(got.at(-1)).toMatchObject({ state: 'working', detail: 'prompt' });
    });
  });

  it('a job types its first prompt, and resumes a session by its id', () => {
    const t = DEFAULT_TEMPLATES.pi!;
    expect(commandLine(t, 'fix it', undefined, false, 'S')).toEqual(['pi']);
    expect(commandLine(t, '', { mode: 'id', id: 'R' }, false)).toEqual(['pi', '--session', 'R']);
  });
});
