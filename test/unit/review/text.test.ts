// `mado review` in words: what a file's text or name holds is shown, never acted on by a terminal.
import { describe, expect, it } from 'vitest';
import { reviewHead, shownBytes } from '../../../src/review/text.js';

describe('shownBytes', () => {
  it('shows controls as ^X and the C1 and bidirectional ones as <U+…>, keeping tabs and line ends', () => {
    expect(shownBytes('a\u001b[2Jb\u0007\u007f\tc\nd\u009b1m\u202egnp.exe\u2066x')).toBe(
      'a^[[2Jb^G^?\tc\nd<U+009B>1m<U+202E>gnp.exe<U+2066>x',
    );
  });

  it('the head is one line for each thing said: a name or a folder holding a line end or a tab makes no second', () => {
    const head = reviewHead({
      agent: 'claude',
      name: 'evil\nname',
      turn: 2,
      first: 1,
      last: 2,
      startedAt: Date.UTC(2026, 11, 6, 10, 1),
      endedAt: Date.UTC(2026, 11, 6, 10, 4),
      folder: '/p/a\tb',
      others: ['codex\u001b]0;x'],
      files: [],
    });
    expect(head).toEqual([
      'evil^Jname · turn 2 (kept 1–2) · 2026-12-06 10:01 → 10:04 · /p/a^Ib',
      'codex^[]0;x also worked here during this turn',
      'no change',
    ]);
  });
});
