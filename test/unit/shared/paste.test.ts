// Text written into an agent is one paste whatever its bytes: a property test over random strings
// (every C0 and C1 control, partial and nested escapes, NUL, lone surrogates, 100 KB).
import { describe, expect, it } from 'vitest';
import { PASTE_END, PASTE_START, pasteBytes, pasteText } from '../../../src/shared/paste.js';

const LONE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A small seeded generator: the same strings on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const PIECES = [
  '\x1b[201~',
  '\x1b[200~',
  '\x1b[20',
  '\x1b[201',
  '\x1b',
  '\x03',
  '\x04',
  '\r',
  '\n',
  '\r\n',
  '\t',
  '\x00',
  '\x7f',
  '\x9b',
  '\x9b201~',
  '\x1b]0;title\x07',
  '\x1bP',
  '\x90',
  '\x9c',
  '\x1b[A',
  '\x1b[1;5D',
  '/exit',
  'y',
  '\x1b\x1b[201~\x1b[201~',
  '\ud800',
  '\udfff',
  'plain words ',
  '✶ Baking… ',
  '日本語',
  '🙂',
];

function randomText(r: () => number, length: number): string {
  let out = '';
  while (out.length < length) {
    const k = r();
    if (k < 0.5) out += PIECES[Math.floor(r() * PIECES.length)];
    else if (k < 0.8)
      out += String.fromCharCode(Math.floor(r() * 0xa0)); // every C0, ASCII, DEL, every C1
    else out += String.fromCharCode(0x20 + Math.floor(r() * 0xffd0));
  }
  return out;
}

/** What a terminal program reading `bytes` would take as keys outside of a paste (nothing, for a paste). */
function checkPaste(bytes: string, bracketed: boolean): void {
  if (bracketed) {
    expect(bytes.startsWith(PASTE_START)).toBe(true);
    expect(bytes.endsWith(PASTE_END)).toBe(true);
    const body = bytes.slice(PASTE_START.length, bytes.length - PASTE_END.length);
    // One start and one end: the body holds neither, nor any ESC that could begin one.
    expect(body.includes('\x1b')).toBe(false);
    // No control of C0 or C1 but newline and tab, no DEL, no NUL.
    expect(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(body)).toBe(false);
  } else {
    // Without bracketed paste, a newline or a tab would be a key too.
    expect(/[\x00-\x1f\x7f-\x9f]/.test(bytes)).toBe(false);
  }
  // Well formed: no lone surrogate to be written as something else.
  expect(LONE.test(bytes)).toBe(false);
}

describe('pasteBytes', () => {
  it('keeps text as it is: words, newlines and tabs inside a bracketed paste', () => {
    expect(pasteBytes('fix the parser\n\tthen test', true)).toBe(
      `${PASTE_START}fix the parser\n\tthen test${PASTE_END}`,
    );
    expect(pasteBytes('a\r\nb\rc', true)).toBe(`${PASTE_START}a\nb\nc${PASTE_END}`);
  });

  it('an end mark inside the text cannot end the paste; what follows it is no key', () => {
    const hostile = `summary\x1b[201~\x03/exit\r\x1b[200~y\r`;
    const out = pasteBytes(hostile, true);
    expect(out.indexOf(PASTE_END)).toBe(out.length - PASTE_END.length);
    expect(out).toBe(`${PASTE_START}summary␛[201~␃/exit\n␛[200~y\n${PASTE_END}`);
  });

  it('makes controls visible, drops NUL, and without bracketed paste puts the text on one line', () => {
    expect(pasteText('a\x00b\x7fc\x9bd\x1b', true)).toBe('ab␡c\ufffdd␛');
    expect(pasteBytes('line one\nline two\tend\r', false)).toBe('line one line two end ');
  });

  it('holds for 2,000 random strings and a 100 KB one, bracketed or not', () => {
    const r = rng(15);
    for (let i = 0; i < 2000; i++) {
      const text = randomText(r, 1 + Math.floor(r() * 200));
      checkPaste(pasteBytes(text, true), true);
      checkPaste(pasteBytes(text, false), false);
    }
    const big = randomText(r, 100 * 1024);
    checkPaste(pasteBytes(big, true), true);
    checkPaste(pasteBytes(big, false), false);
  });

  it('loses no printable text', () => {
    const r = rng(7);
    for (let i = 0; i < 200; i++) {
      const text = randomText(r, 100).replace(new RegExp(LONE.source, 'g'), '\ufffd');
      const printable = (s: string): string => s.replace(/[\x00-\x20\x7f-\x9f\u2400-\u2426\ufffd]/g, '');
      expect(printable(pasteText(text, true))).toBe(printable(text));
    }
  });
});
