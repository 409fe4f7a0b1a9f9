// Kilo Code CLI 7.7.7 (a fork of OpenCode): its real screens at 120×40, 80×24 and 60×20, its process,
// its job template, its data folder, and its session store (a real database of a captured session).
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KILO_DB, kilo } from '../../../src/agents/kilo.js';
import { agentOfProcess, detectScreen, identifyScreen } from '../../../src/agents/index.js';
import { readStore, xdgDataDir } from '../../../src/agents/opencode.js';
import { commandLine, DEFAULT_TEMPLATES } from '../../../src/jobs/templates.js';
import { sqliteSupport } from '../../../src/records/sqlite.js';
import { agentScreens, kindsAt } from './fixtures.js';

const fixtures = agentScreens('kilo');
const screenOf = (name: string): { lines: string[]; title: string } => ({
  lines: fixtures[name]!.lines,
  title: fixtures[name]!.title,
});

describe('Kilo Code CLI: its screens, as 7.7.7 draws them', () => {
  it.each(Object.keys(fixtures))('%s', (name) => {
    const f = fixtures[name]!;
    expect(identifyScreen(screenOf(name))).toBe('kilo');
    expect(detectScreen(screenOf(name))).toMatchObject({ agent: f.expect.agent, state: f.expect.state });
  });

  it('a whole session at each size: every kind of screen, at 120, 80 and 60 columns', () => {
    const kinds = (prefix: string): string[] => kindsAt(fixtures, prefix);
    const at120 = kinds('kilo-real-').filter((k) => !/^(?:80|60)-/.test(k));
    expect(kinds('kilo-real-80-')).toEqual(at120.filter((k) => k !== 'tool-done'));
    expect(kinds('kilo-real-60-')).toEqual(kinds('kilo-real-80-'));
    for (const size of ['', '80-', '60-'])
      expect(detectScreen(screenOf(`kilo-real-${size}reject-reason`))).toMatchObject({
        state: 'waiting',
        rule: 'kilo/reject-reason',
      });
  });

  it('its title names it, OpenCode’s rows alone do not: without a title they are OpenCode’s', () => {
    expect(identifyScreen(screenOf('kilo-real-done'))).toBe('kilo');
    expect(identifyScreen({ ...screenOf('kilo-real-done'), title: '' })).toBe('opencode');
    // Its own words on a row tell it without the title.
    expect(identifyScreen({ ...screenOf('kilo-real-reject-reason'), title: '' })).toBe('kilo');
  });

  it('its process: node running its launcher, then its binary `.kilo` (as 7.7.7 runs them)', () => {
    const launcher = ['node', '/tmp/agents-kilo/node_modules/.bin/kilo', '--port', '45771'];
    expect(agentOfProcess({ pid: 8610, ppid: 1, comm: 'node', argv: launcher, exe: '/usr/bin/node' })).toBe('kilo');
    const binary = ['/tmp/agents-kilo/node_modules/@kilocode/cli/bin/.kilo', '--port', '45771'];
    expect(agentOfProcess({ pid: 8618, ppid: 8610, comm: '.kilo', argv: binary, exe: binary[0]! })).toBe('kilo');
    expect(agentOfProcess({ pid: 2, ppid: 1, comm: 'kilo', argv: ['kilo'], exe: '/usr/bin/kilo' })).toBe('kilo');
    expect(
      agentOfProcess({
        pid: 2,
        ppid: 1,
        comm: 'node',
        argv: ['node', '/usr/lib/node_modules/@kilocode/cli/bin/kilo'],
        exe: '/usr/bin/node',
      }),
    ).toBe('kilo');
    expect(agentOfProcess({ pid: 2, ppid: 1, comm: 'kilometer', argv: ['kilometer'], exe: '/x' })).toBeUndefined();
  });

  it('its job template resumes a session by id (`kilo -s <id>` is what it prints as it exits)', () => {
    const t = DEFAULT_TEMPLATES.kilo!;
    expect(t).toMatchObject({ command: ['kilo'], prompt: 'type' });
    // A prompt is typed once it is up: never an argument.
    expect(commandLine(t, 'fix it', undefined, false, 'S')).toEqual(['kilo']);
    const id = 'ses_db199b9b2ffeAfNGgmKlEDsvw3';
    expect(commandLine(t, '', { mode: 'id', id }, false)).toEqual(['kilo', '--session', id]);
    expect(commandLine(t, '', { mode: 'id', id }, true)).toEqual(['kilo', '--session', id, '--fork']);
    expect(commandLine(t, '', { mode: 'continue' }, false)).toEqual(['kilo', '--continue']);
    expect(kilo.env).toEqual({ names: [], prefixes: ['KILO_'] });
    // Its server asks a password of its own: a job reads its store as a terminal does, no event stream.
    expect(kilo.jobStream).toBeUndefined();
    expect(kilo.records).toBeDefined();
  });

  it('its data folder is under XDG_DATA_HOME, else ~/.local/share', () => {
    expect(xdgDataDir('kilo', { HOME: '/home/x' })).toBe('/home/x/.local/share/kilo');
    expect(xdgDataDir('kilo', { HOME: '/home/x', XDG_DATA_HOME: '/data' })).toBe('/data/kilo');
  });
});

describe.skipIf(!sqliteSupport().ok)('Kilo Code CLI 7.7.7: its store (a real database) read as OpenCode’s', () => {
  const FIX = path.resolve(__dirname, '../../fixtures/records');
  const copy = (): string => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-kilo-')), KILO_DB);
    copyFileSync(path.join(FIX, KILO_DB), file);
    return file;
  };
  const place = { cwd: '/tmp/kilo-cap/work', startedAt: 1796611690000 };

  it('finds the session of the process and reads its turns: a command, a question, an interrupt, an edit', () => {
    const reading = readStore(copy(), place, undefined, new Set());
    expect(reading.sessionId).toBe('ses_db1992297ffeveKQbbP2ZCm4S6');
    // Its last turn: a write it asked about, rejected (the screen says so; the store keeps the tool call).
    expect(reading.signal).toMatchObject({ state: 'working', source: 'session-db' });
    expect(reading.usage?.length).toBeGreaterThan(0);
    // Another folder, or a process started after the session: none.
    expect(readStore(copy(), { ...place, cwd: '/elsewhere' }, undefined, new Set()).sessionId).toBeUndefined();
    expect(readStore(copy(), { ...place, startedAt: 1796611800000 }, undefined, new Set()).sessionId).toBeUndefined();
  });
});
