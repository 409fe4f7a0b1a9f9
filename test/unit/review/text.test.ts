// `mado review` in words: what a file's text or name holds is shown, never acted on by a terminal.
import { describe, expect, it } from 'vitest';
import { shownBytes } from '../../../src/review/text.js';

describe('shownBytes', () => {
  it('shows controls as ^X and the C1 and bidirectional ones as <U+…>, keeping tabs and line ends', () => {
    expect(shownBytes('a\u001b[2Jb\u0007\u007f\tc\nd\u009b1m\u202egnp.exe\u2066x')).toBe(
      'a^[[2Jb^G^?\tc\nd<U+009B>1m<U+202E>gnp.exe<U+2066>x',
    );
  });
});
