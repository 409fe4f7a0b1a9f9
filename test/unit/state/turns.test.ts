// Each entry's turns: the bound a finished turn's prompt is recorded after.
import { describe, expect, it } from 'vitest';
import { PROMPT_BEFORE_START_MS, TurnBook } from '../../../src/state/turns.js';

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
