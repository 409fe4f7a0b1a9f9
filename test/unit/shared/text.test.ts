import { describe, expect, it } from 'vitest';
import { noControl, safeText } from '../../../src/shared/text.js';

describe('text from outside, printed', () => {
  // `exe.txt` written with a right-to-left override shows as `txt.exe`; isolates and marks reorder too.
  const bidi = [
    '\u202e',
    '\u202c',
    '\u202a',
    '\u202b',
    '\u202d',
    '\u2066',
    '\u2067',
    '\u2068',
    '\u2069',
    '\u200e',
    '\u200f',
    '\u061c',
  ];

  it('noControl: control characters become spaces, bidirectional controls are dropped, the rest stays', () => {
    expect(noControl('a\x1b]0;t\x07b')).toBe('a ]0;t b');
    for (const c of bidi) expect(noControl(`report${c}fdp.exe`)).toBe('reportfdp.exe');
    expect(noControl('Waiting ✓ — résumé 日本')).toBe('Waiting ✓ — résumé 日本');
  });

  it('safeText: control characters become ?, bidirectional controls are dropped, new lines and tabs spaces', () => {
    expect(safeText('a\x1b[2Jb\x9b')).toBe('a?[2Jb?');
    for (const c of bidi) expect(safeText(`x${c}y`)).toBe('xy');
    expect(safeText('one\ntwo\tthree')).toBe('one two three');
  });
});
