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

/** The row of the last choice `1.` on the screen: the dialog is at the bottom, a numbered list in an answer above it. */
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

/**
 * The question above the first choice: the nearest row with a `?` in it, cut after its last `?`
 * (`Do you want to proceed?`, `Would you like to run the following command?`, `Allow execution
 * of [npm]?`). Undefined when the screen has no numbered choices or no such row near them.
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
    if (end >= 0) return row.slice(0, end + 1);
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

/** Since when `lines` show a menu (epoch ms): `since` while it stays, `now` when it has just come, undefined when none shows. */
export function menuSince(since: number | undefined, lines: readonly string[], now: number): number | undefined {
  return highlightedOf(lines) === undefined ? undefined : (since ?? now);
}
