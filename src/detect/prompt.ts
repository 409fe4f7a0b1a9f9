// The user's prompt as an agent echoes it above its answer: the job's "intent" when a terminal's
// agent is sent to the background. Pure, from the screen only, by the agent's rule (from its module).
import type { PromptRule } from './types.js';
import { textRows } from '../shared/text.js';
import { highlightedOf, optionsOf } from './question.js';

/** The row of the first line below row `i` that is neither blank nor one the rule skips (or the end). */
function nextRow(rule: PromptRule, lines: readonly string[], i: number): number {
  let j = i + 1;
  while (j < lines.length && (lines[j]!.trim() === '' || rule.skip?.test(lines[j]!))) j++;
  return j;
}

/** The prompt a line echoes by `pattern` (its group 1, trailing blanks off), or undefined. */
export function echoedIn(pattern: RegExp, line: string): string | undefined {
  const m = pattern.exec(line);
  return m ? m[1]!.trimEnd() : undefined;
}

/** The most rows below its first that a prompt echoed on several lines is read for. */
const MAX_ECHO_ROWS = 200;

/**
 * The last row of the prompt echoed at row `i` (whose text is `text`): a prompt of several lines goes
 * on in the rows below it indented as far as its text (blank and skipped rows between), up to the
 * first row that answers it or stands less indented. `i` when it has one line.
 */
export function echoEnd(
  rule: Pick<PromptRule, 'answered' | 'skip'>,
  lines: readonly string[],
  i: number,
  text: string,
): number {
  const width = text === '' ? -1 : lines[i]!.indexOf(text);
  if (width <= 0) return i;
  const indent = ' '.repeat(width);
  let end = i;
  for (let j = i + 1; j < lines.length && j <= i + MAX_ECHO_ROWS; j++) {
    const line = lines[j]!;
    if (line.trim() === '' || rule.skip?.test(line)) continue;
    if (rule.answered.test(line) || !line.startsWith(indent)) break;
    end = j;
  }
  return end;
}

/** Whether row `i` echoes a submitted prompt (an answer follows it, below all its lines); its text, or undefined. */
function submittedAt(rule: PromptRule, lines: readonly string[], i: number): string | undefined {
  const text = echoedIn(rule.line, lines[i]!);
  if (text === undefined || rule.not?.test(text)) return undefined;
  const j = nextRow(rule, lines, echoEnd(rule, lines, i, text));
  return j < lines.length && rule.answered.test(lines[j]!) ? text : undefined;
}

/** The first submitted prompt on the screen, or undefined. */
export function promptOf(rule: PromptRule | undefined, lines: readonly string[]): string | undefined {
  if (!rule) return undefined;
  for (let i = 0; i < lines.length; i++) {
    const text = submittedAt(rule, lines, i);
    if (text !== undefined) return text;
  }
  return undefined;
}

/**
 * The row of the last submitted prompt on the screen (the current turn starts there), or -1. What
 * stands above it belongs to earlier turns: an old spinner or question there decides nothing. Rows
 * from `end` on (the input box) hold a draft: no prompt is looked for there.
 */
export function turnStart(rule: PromptRule | undefined, lines: readonly string[], end = lines.length): number {
  if (!rule) return -1;
  for (let i = Math.min(end, lines.length) - 1; i >= 0; i--) if (submittedAt(rule, lines, i) !== undefined) return i;
  return -1;
}

/** How far from the bottom of the screen an agent's input line may stand (its footer below it). */
const INPUT_REACH = 8;

/**
 * What the user has typed into the agent's input line and not yet submitted, or undefined: the
 * lowest prompt line near the bottom of the screen with text in it (a placeholder is none) that no
 * answer follows. A reply is held while there is one, so that it never mixes with a draft.
 */
export function draftOf(rule: PromptRule | undefined, lines: readonly string[]): string | undefined {
  if (!rule) return undefined;
  const end = textRows(lines);
  const input = rule.draft ?? rule.line;
  for (let i = end - 1; i >= Math.max(0, end - INPUT_REACH); i--) {
    const line = lines[i]!;
    if (rule.answered.test(line) && !input.test(line)) return undefined;
    const text = echoedIn(input, line);
    if (text === undefined) continue;
    // In a box of another kind (a permission's, a tool's), not the input box: no draft.
    if (rule.inputEnd && !rule.inputEnd.test(lines[nextRow(rule, lines, i)] ?? '')) return undefined;
    // A menu's highlighted choice (Codex's `› 1. Yes, proceed (y)`, `  2. …` under it) is no draft.
    if (/^\d+\.\s/.test(text) && optionsOf(lines).length > 1 && highlightedOf(lines) !== undefined) return undefined;
    return rule.not?.test(text) ? undefined : text;
  }
  return undefined;
}
