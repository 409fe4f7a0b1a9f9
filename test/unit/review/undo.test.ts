// X in the review: a hunk undone in the folder — only that hunk, only when the file is what the review
// shows, never through a link or out of the folder.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hunkAt, hunksOf, undoHunk, undoneText } from '../../../src/review/undo.js';

let base: string;
let folder: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'mado-undo-'));
  folder = path.join(base, 'work');
  mkdirSync(folder);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const before = 'a\nb\nc\nd\ne\nf\n';
const after = 'a\nB\nc\nd\ne\nf\ng\n';

describe('hunks', () => {
  it('finds each change as a hunk, and puts one back alone', () => {
    const hunks = hunksOf(before, after);
    expect(hunks).toEqual([
      { oldStart: 2, oldCount: 1, newStart: 2, newCount: 1 },
      { oldStart: 7, oldCount: 0, newStart: 7, newCount: 1 },
    ]);
    expect(hunkAt(hunks, 7)).toEqual(hunks[1]);
    expect(undoneText(before, after, hunks[0]!)).toBe('a\nb\nc\nd\ne\nf\ng\n');
    expect(undoneText(before, after, hunks[1]!)).toBe('a\nB\nc\nd\ne\nf\n');
    // A deletion sits between lines: the line before and after it find it.
    const del = hunksOf('a\nb\nc\n', 'a\nc\n');
    expect(del).toEqual([{ oldStart: 2, oldCount: 1, newStart: 2, newCount: 0 }]);
    expect(hunkAt(del, 1)).toEqual(del[0]);
    expect(undoneText('a\nb\nc\n', 'a\nc\n', del[0]!)).toBe('a\nb\nc\n');
    // A last line with no end.
    expect(undoneText('x\ny', 'x\nz', hunksOf('x\ny', 'x\nz')[0]!)).toBe('x\ny');
  });
});

describe('undoHunk', () => {
  it('undoes the hunk at a line in the file, keeping its mode; a second hunk after the first', () => {
    const file = path.join(folder, 'f.txt');
    writeFileSync(file, after, { mode: 0o755 });
    const once = undoHunk(folder, 'f.txt', before, after, 2);
    expect(once).toBe('a\nb\nc\nd\ne\nf\ng\n');
    expect(readFileSync(file, 'utf8')).toBe(once);
    expect(statSync(file).mode & 0o777).toBe(0o755);
    expect(undoHunk(folder, 'f.txt', before, once, 7)).toBe(before);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('removes an added file, restores a deleted one', () => {
    writeFileSync(path.join(folder, 'new.txt'), 'n\n');
    expect(undoHunk(folder, 'new.txt', null, 'n\n', 1)).toBeNull();
    expect(existsSync(path.join(folder, 'new.txt'))).toBe(false);
    expect(undoHunk(folder, 'sub/gone.txt', 'g\n', null, 0)).toBe('g\n');
    expect(readFileSync(path.join(folder, 'sub/gone.txt'), 'utf8')).toBe('g\n');
  });

  it('refuses a file changed since the turn: nothing lost', () => {
    const file = path.join(folder, 'f.txt');
    writeFileSync(file, `${after}mine\n`);
    expect(() => undoHunk(folder, 'f.txt', before, after, 2)).toThrow('f.txt changed since the turn ended');
    expect(readFileSync(file, 'utf8')).toBe(`${after}mine\n`);
    writeFileSync(path.join(folder, 'back.txt'), 'someone made it again\n');
    expect(() => undoHunk(folder, 'back.txt', 'old\n', null, 0)).toThrow('changed since the turn ended');
  });

  it('refuses a path out of the folder, a link, a folder on the way that is a link', () => {
    const outside = path.join(base, 'outside.txt');
    writeFileSync(outside, after);
    for (const rel of ['../outside.txt', '/etc/passwd', 'a/../../outside.txt', '.git/config'])
      expect(() => undoHunk(folder, rel, before, after, 2), rel).toThrow('its path leaves the folder');
    symlinkSync(outside, path.join(folder, 'link.txt'));
    expect(() => undoHunk(folder, 'link.txt', before, after, 2)).toThrow('it is a link now');
    symlinkSync(base, path.join(folder, 'up'));
    expect(() => undoHunk(folder, 'up/outside.txt', before, after, 2)).toThrow('up is a link or no folder');
    expect(readFileSync(outside, 'utf8')).toBe(after);
  });
});
