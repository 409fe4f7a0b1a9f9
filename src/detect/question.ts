// What a waiting agent asks: the question and its numbered choices, read from the screen.
// Pure; the detectors tell *that* an agent waits (and which line showed it), this tells *what* it asks.
import { unframed } from './shapes.js';

/** A choice's row, its frame gone (`❯ 1. Yes`). */
const OPTION = /^(?:[❯›>●]\s*)?(\d+)\.\s+(.+?)$/;
/**
 * How far above its first choice a question may stand, in rows with text (a command and its reason
 * between them; Codex 0.171 leaves a blank row between each).
 */
const QUESTION_REACH = 8;

/**
 * The row of the last choice `1.` on the screen: the dialog is at the bottom, a numbered list in an answer
 * above it.
 */
function firstChoice(lines: readonly string[]): number {
  for (let i = lines.length - 1; i >= 0; i--) if (OPTION.exec(unframed(lines[i]!))?.[1] === '1') return i;
  return -1;
}

/** The choices of a question on the screen (`❯ 1. Yes`, `  2. No, …`), in order. */
export function optionsOf(lines: readonly string[]): string[] {
  const out: string[] = [];
  const first = firstChoice(lines);
  if (first < 0) return out;
  for (const line of lines.slice(first)) {
    const m = OPTION.exec(unframed(line));
    if (m && Number(m[1]) === out.length + 1) out.push(m[2]!);
  }
  return out;
}

/** The most characters of what a question asks about. */
const MAX_SUBJECT = 120;

const indentOf = (line: string): number => line.length - line.trimStart().length;

const RULE = /^\s*[─━╌═-]{8,}\s*$/;

/**
 * What the question at row `at` asks about, when the dialog shows it: a command between it and its
 * choices (Codex's `$ npm test`); else a row between two dashed rules above it (Claude Code 2.1's
 * ` npm test` between `╌╌╌` rules); else the block indented deeper just above it, under a title
 * (` Bash command`, a blank row, `   rm -rf build`). Undefined when none.
 */
function subjectOf(lines: readonly string[], at: number, first: number): string | undefined {
  for (let i = at + 1; i < first; i++) {
    const m = /^\$\s+(\S.*)$/.exec(unframed(lines[i]!).trim());
    if (m) return m[1]!.slice(0, MAX_SUBJECT);
  }
  for (let i = at - 1; i > 0 && i >= at - QUESTION_REACH; i--) {
    const row = lines[i]!.trim();
    if (row !== '' && !RULE.test(row) && RULE.test(lines[i - 1]!) && RULE.test(lines[i + 1] ?? ''))
      return row.slice(0, MAX_SUBJECT);
  }
  const own = indentOf(lines[at]!);
  let i = at - 1;
  if (lines[i]?.trim() === '') i--;
  let top = -1;
  for (; i >= 0 && lines[i]!.trim() !== '' && indentOf(lines[i]!) > own; i--) top = i;
  if (lines[i]?.trim() === '') i--;
  const title = lines[i];
  if (top < 0 || title === undefined || title.trim() === '' || RULE.test(title)) return undefined;
  return lines[top]!.trim().slice(0, MAX_SUBJECT);
}

/**
 * The question above the first choice: the nearest row with a `?` in it, cut after its last `?`
 * (`Do you want to proceed?`, `Would you like to run the following command?`, `Allow execution
 * of [npm]?`), with what it asks about when the dialog shows it (`Do you want to proceed? — rm -rf
 * build`). Undefined when the screen has no numbered choices or no such row near them.
 */
export function questionOf(lines: readonly string[]): string | undefined {
  const first = firstChoice(lines);
  let seen = 0;
  for (let i = first - 1; first >= 0 && i >= 0 && seen < QUESTION_REACH; i--) {
    // A leading `?` is an icon (Gemini's `│ ?  Shell npm test`), not a question.
    const row = unframed(lines[i]!).replace(/^\?\s+/, '');
    if (row === '') continue;
    seen++;
    const end = row.lastIndexOf('?');
    if (end < 0) continue;
    const subject = subjectOf(lines, i, first);
    return `${row.slice(0, end + 1)}${subject ? ` — ${subject}` : ''}`;
  }
  return undefined;
}

/** The 1-based number of the highlighted choice (the one a `❯`, `›`, `>` or `●` marks), or undefined. */
export function highlightedOf(lines: readonly string[]): number | undefined {
  const first = firstChoice(lines);
  if (first < 0) return undefined;
  for (const line of lines.slice(first)) {
    const m = /^[❯›>●]\s*(\d+)\.\s/.exec(unframed(line));
    if (m) return Number(m[1]);
  }
  return undefined;
}

/**
 * Since when `lines` show a menu (epoch ms): `since` while it stays, `now` when it has just come, undefined
 * when none shows.
 */
export function menuSince(since: number | undefined, lines: readonly string[], now: number): number | undefined {
  return highlightedOf(lines) === undefined ? undefined : (since ?? now);
}
