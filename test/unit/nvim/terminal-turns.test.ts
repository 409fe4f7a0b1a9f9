// The Neovim side's checkpoints of its terminals: an agent's turn gets a start and an end, and the
// files it changed reach its entry; a shell's commands are no turns (nothing is written for them).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { terminalEntry } from '../../../src/fleet/entry.js';
import type { FleetEntry } from '../../../src/fleet/entry.js';
import { TerminalTurns } from '../../../src/nvim/terminal-turns.js';
import { shadowDirs } from '../../../src/review/checkpoint.js';
import { findLedger } from '../../../src/review/read.js';
import type { StateChange } from '../../../src/state/tracker.js';
import { untilValue } from '../../helpers/wait.js';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'mado-terminal-turns-'));
  mkdirSync(path.join(base, 'work'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const change = (agent: string, previous: StateChange['previous'], state: StateChange['state']): StateChange => ({
  buf: 7,
  agent,
  state,
  previous,
  source: 'pty-scrape',
  detail: '',
  since: Date.now(),
  confirmed: false,
  exit: null,
  interrupted: false,
});

function turns(agent: string): { turns: TerminalTurns; changed: (number | null)[] } {
  const folder = path.join(base, 'work');
  const entry: FleetEntry = terminalEntry(change(agent, null, 'idle'), folder);
  const changed: (number | null)[] = [];
  const hub = { all: () => [entry], turnChanged: (_buf: number, n: number | null) => void changed.push(n) };
  return { turns: new TerminalTurns(hub, { ...process.env, MADOHUB_REVIEW_DIR: path.join(base, 'review') }), changed };
}

describe("the Neovim side's checkpoints of its terminals", () => {
  it("an agent's turn: a start, an end, and the files it changed told to its entry", async () => {
    const t = turns('claude');
    t.turns.changes([change('claude', 'idle', 'working')]);
    await t.turns.settled(7);
    writeFileSync(path.join(base, 'work', 'a.txt'), 'a\n');
    t.turns.changes([change('claude', 'working', 'completed')]);
    expect(
      await untilValue(
        async () => t.changed,
        (c) => c.length > 0,
      ),
    ).toEqual([1]);
    const found = findLedger(path.join(base, 'review'), `term-${process.pid}-7`);
    expect(found?.ledger.turns.map((x) => [x.turn, x.start !== undefined, x.end !== undefined])).toEqual([
      [1, true, true],
    ]);
  });

  it("a shell's command is no turn: nothing is written", async () => {
    const t = turns('shell');
    t.turns.changes([change('shell', 'idle', 'working')]);
    t.turns.changes([change('shell', 'working', 'idle')]);
    await t.turns.settled(7);
    expect(shadowDirs(path.join(base, 'review'))).toEqual([]);
    expect(t.changed).toEqual([]);
  });
});
