// Each entry's turns: the bound a finished turn's prompt is recorded after.
import { describe, expect, it } from 'vitest';
import {
  PROMPT_BEFORE_START_MS,
  TurnBook,
  WRITE_TAKEN_MS,
  WRITE_TURN_MS,
  WrittenTurn,
} from '../../../src/state/turns.js';

describe('TurnBook', () => {
  it('a turn that ended is bounded by the end of the one before; the first seen by its start less a margin; nothing known: no bound', () => {
    let now = 1_000_000;
    const book = new TurnBook(() => now);
    // A turn whose start was not seen (the process started mid-turn): nothing is known.
    expect(book.changed('a', 'stopped', true)).toEqual({ since: undefined });
    now += 1000;
    expect(book.changed('a', 'working', false)).toBeUndefined();
    now += 500;
    expect(book.changed('a', 'waiting', false)).toBeUndefined();
    now += 500;
    // Its prompt came after the turn before ended (1_000_000).
    expect(book.changed('a', 'completed', true)).toEqual({ since: 1_000_000 });
    // Another entry's first turn seen whole: its start less the margin.
    now += 100;
    book.changed('b', 'working', false);
    now += 100;
    expect(book.changed('b', 'stopped', true)).toEqual({ since: now - 100 - PROMPT_BEFORE_START_MS });
    // A failed turn ends one too; forgotten, an entry starts again.
    now += 100;
    book.changed('a', 'working', false);
    expect(book.changed('a', 'failed', true)).toEqual({ since: 1_002_000 });
    book.forget('a');
    expect(book.changed('a', 'stopped', true)).toEqual({ since: undefined });
  });
});

describe('WrittenTurn', () => {
  const still = { redrawn: false, draft: false };
  it('busy from a write until its turn showed and ended; a Waiting turn takes an answer', () => {
    const w = new WrittenTurn();
    expect(w.observe('idle', 0, still)).toBe(false);
    w.wrote(1000);
    expect(w.observe('idle', 1100, still)).toBe(true);
    expect(w.observe('working', 1200, { redrawn: true, draft: false })).toBe(true);
    expect(w.observe('waiting', 1300, { redrawn: true, draft: false })).toBe(false);
    expect(w.observe('working', 1400, { redrawn: true, draft: false })).toBe(true);
    expect(w.observe('stopped', 9000, { redrawn: true, draft: false })).toBe(false);
    expect(w.due(9000)).toBeUndefined();
  });
  it('with no turn shown: taken once a screen drawn since has its input line empty (after 500 ms), else said after 3 s', () => {
    const w = new WrittenTurn();
    w.wrote(1000);
    expect(w.due(1000)).toBe(1000 + WRITE_TAKEN_MS);
    expect(w.observe('idle', 1200, { redrawn: true, draft: false })).toBe(true);
    expect(w.observe('idle', 1600, { redrawn: true, draft: true })).toBe(true);
    expect(w.due(1600)).toBe(1000 + WRITE_TURN_MS);
    expect(w.observe('idle', 1700, { redrawn: true, draft: false })).toBe(false);
    w.wrote(5000);
    expect(w.observe('idle', 7900, still)).toBe(true);
    expect(w.observe('idle', 8000, still)).toBe('no turn');
    expect(w.observe('idle', 8100, still)).toBe(false);
  });
});
