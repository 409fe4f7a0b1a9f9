// Shapes every agent's screen shares, whatever its words and its version: the input box at the
// bottom (what stands inside it is a draft and decides nothing), and a question over a choice menu
// (Waiting, whatever the question says). Pure; the engine applies them with each agent's rules.

/** A horizontal border of a box or a rule across the screen (`╭────╮`, `────`, `╰────╯`, `└────┘`). */
const BORDER = /^\s*[╭╰┌└├]?[─━═]{8,}/;
/** The input line's start, its frame taken off: a prompt glyph, then a space or nothing. */
const INPUT_LINE = /^[\s│┃]*[>❯›](?:\s|$)/;
/** How far above the last text row the input box's lower border may stand (its footer below it). */
const BOX_REACH = 8;
/** The most rows an input box holds between its borders (a draft of several lines). */
const BOX_ROWS = 6;

/**
 * The rows inside the input box at the bottom of the screen (`[top, bottom]`, both inside its
 * borders), or undefined when there is none: the lowest pair of borders near the bottom with at
 * most BOX_ROWS rows between them, the lower within BOX_REACH rows of the last text row, the first
 * row between them an input line (a dialog's box, an error's, is no input box).
 */
export function inputBoxRows(lines: readonly string[], lastText: number): [number, number] | undefined {
  for (let low = lastText; low >= 0 && low >= lastText - BOX_REACH; low--) {
    if (!BORDER.test(lines[low]!)) continue;
    for (let high = low - 1; high >= 0 && high >= low - BOX_ROWS - 1; high--) {
      if (!BORDER.test(lines[high]!)) continue;
      // The input box's first row holds its prompt glyph (`> `, `❯ `, `› `); a dialog's box does not.
      return high + 1 <= low - 1 && INPUT_LINE.test(lines[high + 1]!) ? [high + 1, low - 1] : undefined;
    }
    return undefined;
  }
  return undefined;
}

/** A frame's side or white space (what JavaScript's `\s` takes), trimmed off a row's ends. */
function framing(c: number): boolean {
  return (
    c === 0x20 ||
    (c >= 0x09 && c <= 0x0d) ||
    c === 0x2502 ||
    c === 0x2503 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}
/** A numbered choice with the cursor on it (`❯ 1. Yes`, `› 2. No`, `▸ 1. Allow`, `> 1. Yes`). */
const CURSOR_CHOICE = /^(?:[❯›▸▶→]|>(?=\s*\d))\s*(\d)[.)]\s+\S/;
/** A numbered choice without the cursor (`  2. No, exit`). */
const CHOICE = /^(\d)[.)]\s+\S/;
/** A yes/no prompt's own shape: `(y/n)`, `[y/N]`, `(yes/no)`, `y/n:`. */
const YES_NO = /[([]\s*y(?:es)?\s*\/\s*n(?:o)?\s*[)\]]|\by\/n\s*[:?]?\s*$/i;
/** What a menu's footer or its last row says to answer it: confirm, select, cancel. */
const MENU_FOOTER =
  /\b(?:enter|return|⏎)\s+to\s+(?:confirm|select|submit|continue)|\besc(?:ape)?\s+to\s+(?:cancel|exit|reject|deny|go back|skip)|↑\/?↓\s+to\s+(?:navigate|select|move)/i;
/** How far above a menu's first choice its question may stand, and below its last choice its footer. */
/** A dialog's footer: both keys, Enter to go on and Escape to leave (`Enter to continue · Esc to cancel`). */
const DIALOG_FOOTER =
  /\b(?:enter|return|⏎)\s+to\s+(?:continue|confirm|select|submit|proceed)\b.*\besc(?:ape)?\s+to\s+(?:cancel|exit|go back|skip|close)\b/i;
/** A footer that says how to move between choices: `↑/↓ to choose`, `↑↓ to navigate`, `Enter to select`. */
const NAV_FOOTER = /↑\s*\/?\s*↓\s+to\s+(?:choose|navigate|select|move)|\b(?:enter|return)\s+to\s+select\b/i;
/** …and how to leave them: `Esc to cancel`, `Esc to go back`. */
const LEAVE = /\besc(?:ape)?\s+to\s+(?:cancel|exit|go back|close|skip)\b/i;
/** A choice with the cursor on it, numbered or not (`❯ Yes, make it my default`, `› Qwen OAuth`). */
const CURSOR_ROW = /^[❯›▸▶]\s*\S/;
const QUESTION_REACH = 10;
const FOOTER_REACH = 3;
/** How many rows with text may follow a menu (its footer, a hint, the input box): an answer's list has more. */
const AFTER_MENU = 6;

/**
 * A row without its frame (`│ … │`) and the white space at its ends. A loop, not a pattern: the
 * pattern's end anchor scanned the whole row from every start (the costliest step of the hostile
 * screens' worst reading).
 */
export function unframed(line: string): string {
  let from = 0;
  let to = line.length;
  while (from < to && framing(line.charCodeAt(from))) from++;
  while (to > from && framing(line.charCodeAt(to - 1))) to--;
  return from === 0 && to === line.length ? line : line.slice(from, to);
}

/** A question over a choice menu: its row (the question's, else the menu's first) and its text. */
export interface MenuHit {
  /** Which shape it is, as `--explain` names it. */
  shape: 'shape/choice-menu' | 'shape/yes-no' | 'shape/dialog';
  row: number;
  line: string;
}

/**
 * The question with a choice menu in rows `from`..`lastText`, whatever its words: numbered choices
 * (two or more, in order) with the cursor on one, under a row that asks (`?`) or over a footer that
 * says how to answer; or a yes/no prompt on one of the last rows. A numbered list inside an
 * answer is none: its choices have no cursor, or answer text follows it; nor is a draft in the
 * input box (`box`). A dialog whose last row offers Enter to go on and Escape to leave waits too.
 */
export function choiceMenu(
  lines: readonly string[],
  from: number,
  lastText: number,
  box?: readonly [number, number],
): MenuHit | undefined {
  const start = Math.max(0, from);
  // A draft in the input box is no menu, whatever it holds (`> 1. add tests`).
  const inBox = (row: number): boolean => box !== undefined && row >= box[0] && row <= box[1];
  // The cursor's choice, the lowest on the screen.
  let cursor = -1;
  for (let row = lastText; row >= start && row >= lastText - AFTER_MENU - 9; row--) {
    if (!inBox(row) && CURSOR_CHOICE.test(unframed(lines[row]!))) {
      cursor = row;
      break;
    }
  }
  if (cursor >= 0) {
    // The choices around it: numbered in order, blank rows and wrapped rows between them allowed.
    let first = cursor;
    let last = cursor;
    let count = 1;
    let expected = Number(CURSOR_CHOICE.exec(unframed(lines[cursor]!))![1]);
    let firstNumber = expected;
    for (let row = cursor - 1; row >= start && row >= cursor - 12 && firstNumber > 1; row--) {
      const m = CHOICE.exec(unframed(lines[row]!));
      if (m && Number(m[1]) === firstNumber - 1) {
        firstNumber--;
        first = row;
        count++;
      }
    }
    for (let row = cursor + 1; row <= lastText && row <= cursor + 12; row++) {
      const m = CHOICE.exec(unframed(lines[row]!));
      if (m && Number(m[1]) === expected + 1) {
        expected++;
        last = row;
        count++;
      }
    }
    const trailing = rowsWithText(lines, last + 1, lastText);
    if (count >= 2 && firstNumber === 1 && trailing <= AFTER_MENU) {
      const question = questionAbove(lines, first, start);
      if (question) return question;
      for (let row = last + 1; row <= lastText && row <= last + FOOTER_REACH; row++) {
        if (MENU_FOOTER.test(lines[row]!))
          return { shape: 'shape/choice-menu', row: first, line: unframed(lines[first]!) };
      }
    }
  }
  // A yes/no prompt on one of the last rows.
  for (let row = lastText; row >= start && row >= lastText - 2; row--) {
    if (inBox(row)) continue;
    const text = unframed(lines[row]!);
    if (YES_NO.test(text) && text.length <= 200) return { shape: 'shape/yes-no', row, line: text };
  }
  // A menu without numbers (Claude Code 2.1.332's `❯ Yes …` / `No …` over `↑/↓ to choose · Esc to
  // cancel`, Qwen Code's sign-in over `Enter to select, ↑↓ to navigate, Esc to go back`): a footer
  // on the last rows that says how to move and how to leave, the cursor on a choice above it.
  for (let row = lastText; row >= start && row >= lastText - FOOTER_REACH + 1; row--) {
    if (inBox(row) || (box !== undefined && box[1] >= row) || !NAV_FOOTER.test(lines[row]!) || !LEAVE.test(lines[row]!))
      continue;
    for (let up = row - 1; up >= start && up >= row - 12; up--) {
      // A box between the choices and the footer is another thing's (a search field: Claude Code's history
      // search, a list the user opened).
      if (BORDER.test(lines[up]!)) break;
      if (inBox(up) || !CURSOR_ROW.test(unframed(lines[up]!))) continue;
      let first = up;
      while (
        first - 1 >= start &&
        first > up - 12 &&
        lines[first - 1]!.trim() !== '' &&
        !BORDER.test(lines[first - 1]!)
      )
        first--;
      const question = questionAbove(lines, first, start);
      return question ?? { shape: 'shape/choice-menu', row: up, line: unframed(lines[up]!) };
    }
  }
  // A dialog that holds the screen until Enter or Escape (Claude Code 2.1.332's notice of a change to
  // auto mode), its footer on the last row, no input box under it: its first line says what it is.
  const footer = lastText;
  if (
    footer >= start &&
    !inBox(footer) &&
    (box === undefined || box[1] < footer) &&
    DIALOG_FOOTER.test(unframed(lines[footer]!))
  ) {
    let top = footer;
    for (let row = footer - 1; row >= start && row >= footer - 24 && !BORDER.test(lines[row]!); row--)
      if (lines[row]!.trim() !== '') top = row;
    return { shape: 'shape/dialog', row: top, line: unframed(lines[top]!) };
  }
  return undefined;
}

function rowsWithText(lines: readonly string[], from: number, to: number): number {
  let n = 0;
  for (let row = from; row <= to; row++) if (lines[row]!.trim() !== '' && !BORDER.test(lines[row]!)) n++;
  return n;
}

/** The nearest row with a `?` above a menu's first choice (within QUESTION_REACH rows with text). */
function questionAbove(lines: readonly string[], first: number, start: number): MenuHit | undefined {
  let seen = 0;
  for (let row = first - 1; row >= start && seen < QUESTION_REACH; row--) {
    const text = unframed(lines[row]!).replace(/^\?\s+/, '');
    if (text === '' || BORDER.test(lines[row]!)) continue;
    seen++;
    if (/\?\s*$|\?\s+[([]/.test(text)) return { shape: 'shape/choice-menu', row, line: text };
  }
  return undefined;
}
