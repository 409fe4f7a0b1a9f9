// Screens of older versions of the agents, captured through whole sessions against a mock of their
// model API (test/fixtures/screens/versions/<agent>.json; each screen's note names the version and
// the size): each reads right from the screen alone, and told which agent runs; the same lines
// printed by a shell, its prompt back under them, are the shell's.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectScreen } from '../../../src/agents/index.js';
import type { ScreenFixture } from './fixtures.js';

const DIR = path.join(__dirname, '../../fixtures/screens/versions');
const all = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) => Object.entries(JSON.parse(readFileSync(path.join(DIR, f), 'utf8')) as Record<string, ScreenFixture>));

describe('older versions’ screens', () => {
  it('are there, each with its version in its note', () => {
    expect(all.length).toBeGreaterThan(30);
    for (const [name, s] of all) expect(s.note, name).toMatch(/\d+\.\d+\.\d+/);
  });

  it('today’s main agents at 60×20, through a whole session: each kind of screen there reads right', () => {
    const narrow = (agent: string): [string, ScreenFixture][] =>
      all.filter(([, s]) => s.expect.agent === agent && / at 60x20\b/.test(s.note));
    for (const agent of ['claude', 'codex', 'gemini', 'opencode', 'qwen']) {
      const states = narrow(agent).map(([, s]) => s.expect.state);
      // Idle, a turn under way, an approval, an error or an interrupt at least.
      for (const state of ['idle', 'working', 'waiting', 'failed'])
        expect(states, `${agent}: ${state}`).toContain(state);
      // Its approvals of a command and of a write, each captured.
      const kinds = narrow(agent).map(([name]) => name.replace(/^.*-60-/, ''));
      expect(kinds, agent).toEqual(expect.arrayContaining(['shell-approval', 'edit-approval']));
    }
  });

  it.each(all)('%s, from the screen alone', (_name, s) => {
    const d = detectScreen({ lines: s.lines, title: s.title });
    expect({ agent: d.agent, state: d.state }).toEqual(s.expect);
  });

  it.each(all)('%s, printed by a shell (cat of a capture), is the shell’s', (_name, s) => {
    const printed = [...s.lines, 'dev@box:~/proj$ '];
    expect(detectScreen({ lines: printed, title: 'bash' }).agent).toBe('shell');
  });

  it.each(all)('%s, told the agent', (_name, s) => {
    expect(detectScreen({ lines: s.lines, title: s.title }, undefined, s.expect.agent).state).toBe(s.expect.state);
  });
});
