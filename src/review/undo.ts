// `X` in the review: one hunk of a turn's change undone in the agent's folder — the file as it was at
// the turn's start for those lines (an added file removed, a deleted one restored). Refused, with
// why, when the file is not what the review shows (changed since the turn ended): no one's work is
// lost. Never through a link, never outside the folder.
import { lstatSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import path from 'node:path';
import { readBounded, writeAtomic } from '../shared/files.js';
import { linkInPath } from '../shared/links.js';

/** A hunk: lines [oldStart, oldStart+oldCount) of before became [newStart, newStart+newCount) of after (1-based). */
export interface Hunk {
  oldStart: number;
  oldCount: number;
  newStart: number;
  newCount: number;
}

/** Lines with their ends kept (the last may have none). */
const linesOf = (text: string): string[] => (text === '' ? [] : text.split(/(?<=\n)/));

/** The hunks between two texts (a line diff, by their longest common subsequence, bounded). */
export function hunksOf(before: string, after: string): Hunk[] {
  const a = linesOf(before);
  const b = linesOf(after);
  // Common head and tail first: a turn's change is small beside its file.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = b.slice(head, b.length - tail);
  if (am.length * bm.length > 4_000_000)
    return [{ oldStart: head + 1, oldCount: am.length, newStart: head + 1, newCount: bm.length }];
  // LCS table over the middle.
  const n = am.length;
  const m = bm.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i]![j] = am[i] === bm[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const hunks: Hunk[] = [];
  let i = 0;
  let j = 0;
  let open: Hunk | undefined;
  const close = (): void => {
    if (open) hunks.push(open);
    open = undefined;
  };
  while (i < n || j < m) {
    if (i < n && j < m && am[i] === bm[j]) {
      close();
      i++;
      j++;
      continue;
    }
    open ??= { oldStart: head + i + 1, oldCount: 0, newStart: head + j + 1, newCount: 0 };
    if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      open.newCount++;
      j++;
    } else {
      open.oldCount++;
      i++;
    }
  }
  close();
  return hunks;
}

/** The hunk at line `line` of after (a deletion's hunk sits at the line before and after it). */
export function hunkAt(hunks: readonly Hunk[], line: number): Hunk | undefined {
  return hunks.find((h) =>
    h.newCount > 0
      ? line >= h.newStart && line < h.newStart + h.newCount
      : line === h.newStart - 1 || line === h.newStart,
  );
}

/** `after` with hunk `h` put back as it was in `before`. */
export function undoneText(before: string, after: string, h: Hunk): string {
  const a = linesOf(before);
  const b = linesOf(after);
  const back = a.slice(h.oldStart - 1, h.oldStart - 1 + h.oldCount);
  return [...b.slice(0, h.newStart - 1), ...back, ...b.slice(h.newStart - 1 + h.newCount)].join('');
}

/** The largest file undone. */
const MAX_UNDO_BYTES = 4 * 1024 * 1024;

/** Where `rel` is in `folder`, refused when it leaves it or passes through a link. */
function placeOf(folder: string, rel: string): string {
  if (rel === '' || path.isAbsolute(rel) || rel.split('/').some((p) => p === '..' || p === '.' || p === '.git'))
    throw new Error('its path leaves the folder');
  const root = realpathSync(folder);
  const file = path.join(root, rel);
  const dir = path.dirname(file);
  if (dir !== root && !dir.startsWith(`${root}/`)) throw new Error('its path leaves the folder');
  // No folder on the way is a link (the root is real: only what lies below it is looked at).
  const link = linkInPath(dir);
  if (link) throw new Error(`${path.relative(root, link)} is a link or no folder`);
  return file;
}

/** The file now: its text, null when there is none; a link or a folder is refused. */
function textNow(file: string): string | null {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(file);
  } catch {
    return null;
  }
  if (st.isSymbolicLink()) throw new Error('it is a link now: undo it by hand');
  if (!st.isFile()) throw new Error('it is no file now');
  const r = readBounded(file, MAX_UNDO_BYTES);
  if (!r.ok) throw new Error(`it cannot be read: ${r.why}`);
  return r.text;
}

/** Writes a file by a fresh temporary one renamed over it (its mode kept), never through a link. */
function replaceFile(file: string, text: string): void {
  let mode = 0o644;
  try {
    mode = lstatSync(file).mode & 0o7777;
  } catch {
    mkdirSync(path.dirname(file), { recursive: true });
  }
  writeAtomic(file, text, mode);
}

/**
 * Undoes the hunk at line `line` of the file `rel` in `folder`, given its text at the turn's start
 * (`before`, null: it was added) and as the review shows it now (`expected`, null: it was deleted).
 * Answers its text now (null: removed), or an Error with why not.
 */
export function undoHunk(
  folder: string,
  rel: string,
  before: string | null,
  expected: string | null,
  line: number,
): string | null {
  const file = placeOf(folder, rel);
  const now = textNow(file);
  if (now !== expected)
    throw new Error(`${rel} changed since the turn ended (or since the review was opened): nothing undone`);
  if (before === null) {
    if (now !== null) rmSync(file);
    return null;
  }
  if (expected === null) {
    replaceFile(file, before);
    return before;
  }
  const h = hunkAt(hunksOf(before, expected), line);
  if (!h) throw new Error(`no change of the turn at line ${line} of ${rel}`);
  const text = undoneText(before, expected, h);
  replaceFile(file, text);
  return text;
}
