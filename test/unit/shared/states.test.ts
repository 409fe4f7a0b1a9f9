// The states are one table (STATE_FACTS): every list of them is made from it — the Lua side's
// (lua/madohub/states.lua, written by the build), the doc's — and none is written beside it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { statesLua } from '../../../scripts/doc-agents.js';
import { AGENT_STATES, isConfirmed, JOB_STATE_SOURCES, STATE_FACTS, STATE_SOURCES } from '../../../src/shared/types.js';
import { ROOT } from '../../helpers/files.js';

/** Every Lua file of the plugin but the generated one: its path and text. */
function luaSources(dir = path.join(ROOT, 'lua')): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return luaSources(file);
    return e.name.endsWith('.lua') && e.name !== 'states.lua' ? [{ file, text: readFileSync(file, 'utf8') }] : [];
  });
}

describe('the states', () => {
  it('are listed in the glossary’s order, each with its facts', () => {
    expect(AGENT_STATES).toEqual(['working', 'idle', 'waiting', 'stopped', 'completed', 'failed', 'exited']);
    expect(STATE_FACTS.waiting).toMatchObject({ word: 'Waiting', group: 'needs', told: true, counts: 'waiting' });
  });

  it('lua/madohub/states.lua is what the build writes from them', () => {
    expect(readFileSync(path.join(ROOT, 'lua', 'madohub', 'states.lua'), 'utf8')).toBe(statesLua());
  });

  it('no other Lua file keeps a table of states (a state only a state is, as a key)', () => {
    const keyed = luaSources().filter(({ text }) => /(?:[{,]|^)\s*(?:stopped|completed|exited)\s*=[^=]/m.test(text));
    expect(keyed.map((f) => path.relative(ROOT, f.file))).toEqual([]);
  });
});

describe('the sources of a state', () => {
  it('are one table: the confirmed ones and a job’s are derived from it', () => {
    expect(STATE_SOURCES.filter(isConfirmed)).toEqual([
      'session-file',
      'jsonl-watcher',
      'session-db',
      'event-stream',
      'hook',
      'notification',
    ]);
    expect(JOB_STATE_SOURCES).toEqual(STATE_SOURCES.filter((s) => s !== 'terminal'));
    // A job's file naming no source, or the screen, is not confirmed: one rule for both.
    expect([null, undefined, 'pty-scrape', 'terminal', 'made-up'].map(isConfirmed)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
