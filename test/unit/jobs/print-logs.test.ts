// `mado logs -f`: a line is written once it stands still on the screen above the rows its agent
// redraws, once only, and not again when it scrolls into the scrollback.
import { describe, expect, it } from 'vitest';
import { after as printedAfter, LIVE_ROWS, printedEnd, settledOnScreen } from '../../../src/jobs/print-logs.js';

const chrome = Array.from({ length: LIVE_ROWS }, (_, i) => `chrome ${i}`);

describe('mado logs -f: lines from the screen', () => {
  it('a new line is written once it is the same in two readings, with the agent’s rows below it; never twice', () => {
    const one = ['answer 1', ...chrome];
    const two = ['answer 1', 'answer 2', ...chrome];
    // Seen once: not yet (it may still be drawn).
    expect(settledOnScreen(one, [], [])).toEqual({ print: [], shown: [] });
    // The same again: written.
    expect(settledOnScreen(one, one, [])).toEqual({ print: ['answer 1'], shown: ['answer 1'] });
    // A line more: written once it stands still; the first is not written again.
    expect(settledOnScreen(two, one, ['answer 1'])).toEqual({ print: [], shown: ['answer 1'] });
    expect(settledOnScreen(two, two, ['answer 1'])).toEqual({ print: ['answer 2'], shown: ['answer 1', 'answer 2'] });
    expect(settledOnScreen(two, two, ['answer 1', 'answer 2'])).toEqual({ print: [], shown: ['answer 1', 'answer 2'] });
  });

  it('the rows the agent redraws (spinner, input box, footer) are never written from the screen; trailing blank rows are not counted', () => {
    const screen = ['answer', ...chrome, '', '', ''];
    expect(settledOnScreen(screen, screen, []).print).toEqual(['answer']);
    expect(settledOnScreen(chrome, chrome, []).print).toEqual([]);
  });

  it('a line redrawn in place (a streaming answer) is written as it stands last, from where it changed', () => {
    const a = ['head', 'partial', ...chrome];
    const b = ['head', 'partial and more', ...chrome];
    expect(settledOnScreen(a, a, []).print).toEqual(['head', 'partial']);
    // Changed under what was shown: from the change on, once it stands still.
    expect(settledOnScreen(b, a, ['head', 'partial'])).toEqual({ print: [], shown: ['head'] });
    expect(settledOnScreen(b, b, ['head'])).toEqual({
      print: ['partial and more'],
      shown: ['head', 'partial and more'],
    });
  });

  it('the scrollback that only grew is read on from where it was printed, though the same frame stands in it many times', () => {
    const frame = ['╭─ banner ─╮', '│ tips │', '╰──────────╯'];
    const before = [...frame, 'You said: one'];
    // The frame drawn again and again: its text alone would anchor at the last copy.
    const now = [...before, ...frame, 'You said: two', ...frame];
    expect(printedEnd(now, before.slice(-3), before.length)).toBe(before.length);
    expect(printedAfter(now, frame)).toBe(now.length);
    // A scrollback at its bound dropped its head: found by its text.
    expect(printedEnd(now.slice(1), before.slice(-3), before.length)).toBe(before.length - 1);
  });

  it('after() finds where the lines printed last end', () => {
    expect(printedAfter(['a', 'b', 'c', 'd'], ['b', 'c'])).toBe(3);
    expect(printedAfter(['a', 'b'], ['x'])).toBe(0);
  });
});
