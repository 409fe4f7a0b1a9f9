// Whether a regular expression a user gives is safe to run on every screen line: bounded in length and
// of a shape whose backtracking stays linear in a line's length (MAX_LINE). Pure.

/** The longest pattern taken. */
export const MAX_PATTERN = 200;

/** A bounded repeat above this many counts as an unbounded one (`a{1,500}` costs what `a+` does). */
const BIG_REPEAT = 10;
/**
 * The most ways the small repeats of a pattern that can backtrack may split a text between them (the
 * product of their choices: `.?` has 2, `.{0,8}` 9): `.?` twenty times before `X` tries a million.
 */
export const MAX_CHOICES = 16;

type Token =
  | { kind: 'atom'; src: string; literal?: string }
  | { kind: 'open'; src: string }
  | { kind: 'close' }
  | { kind: 'repeat'; min: number; max: number }
  | { kind: 'or' }
  | { kind: 'start' }
  | { kind: 'end' };

/** The pattern as tokens, or why it cannot be read as one. */
function tokens(source: string): Token[] | string {
  const out: Token[] = [];
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    const rest = source.slice(i);
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not taken';
      const braced = /^\\[upPx](?:\{[^}]*\}|[0-9a-fA-F]{2,4})/.exec(rest);
      const src = braced ? braced[0] : rest.slice(0, 2);
      // An escaped punctuation character (`\.`, `\(`) is that character.
      out.push({ kind: 'atom', src, ...(/^\\[^\w\s]$/.test(src) && { literal: src[1] }) });
      i += src.length - 1;
      continue;
    }
    if (c === '[') {
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      out.push({ kind: 'atom', src: source.slice(i, j + 1) });
      i = j;
      continue;
    }
    if (c === '(') {
      if (/^\(\?<?[=!]/.test(rest)) return 'lookarounds are not taken';
      const open = /^\((?:\?:|\?<[A-Za-z_$][\w$]*>)?/.exec(rest)![0];
      out.push({ kind: 'open', src: open });
      i += open.length - 1;
      continue;
    }
    if (c === ')') out.push({ kind: 'close' });
    else if (c === '|') out.push({ kind: 'or' });
    else if (c === '^') out.push({ kind: 'start' });
    else if (c === '$') out.push({ kind: 'end' });
    else if (c === '*' || c === '+' || c === '?') {
      out.push({ kind: 'repeat', min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity });
      if (source[i + 1] === '?') i++; // Lazy: the same repeat.
    } else if (c === '{' && /^\{\d+(?:,\d*)?\}/.test(rest)) {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(rest)!;
      out.push({
        kind: 'repeat',
        min: Number(m[1]),
        max: m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3]),
      });
      i += m[0].length - 1;
      if (source[i + 1] === '?') i++;
    } else out.push({ kind: 'atom', src: c, literal: c });
  }
  return out;
}

/**
 * Why `source` is refused, or null when it is taken. Refused: an empty pattern, more than
 * MAX_PATTERN characters, one that does not compile, backreferences and lookarounds, a repeated
 * group (other than `?`: `(a|ab)*` backtracks exponentially), and unbounded repeats (`*`, `+`,
 * `{n,}`) that can backtrack. A repeat followed by a character it cannot match (`\s+Allow`, `─*╮`,
 * `\d+s`) or by the line's end gives back at most its own run: it is free. Of the others, one is
 * taken in a pattern anchored at the line's start (`^`): it tries each length once. None is taken in a
 * pattern that may match anywhere: tried from every column, it would cost the square of the line.
 * Small repeats that can backtrack (`?`, `{0,8}`) multiply one another's tries, whatever their bound:
 * MAX_CHOICES ways at most to split a line between them. A pattern that matches every line (`^`,
 * `x?`, `\b|\B`) is refused as an empty one is.
 */
export function patternProblem(source: string, flags = ''): string | null {
  const shape = patternShape(source, flags);
  return typeof shape === 'string' ? shape : null;
}

/** Lines unlike each other: a pattern that matches them all matches every line. */
const UNLIKE_LINES = ['', 'x', ' ', '\u2500\u2500 42 \u276f'];

/**
 * Whether `source` matches every line (`^`, `(?:)`, `x?`, `\b|\B`): an empty text matches it, and so do
 * lines unlike each other.
 */
function matchesEveryLine(source: string, flags: string): boolean {
  const re = new RegExp(source, `${flags}u`);
  return UNLIKE_LINES.every((l) => re.test(l));
}

/**
 * Why `source` is refused (see patternProblem), or how many free repeats it has (0 or 1): a pattern with
 * one costs a line's length.
 */
export function patternShape(source: string, flags = ''): string | { free: number } {
  if (source.length === 0) return 'an empty pattern matches every line';
  if (source.length > MAX_PATTERN) return `longer than ${MAX_PATTERN} characters`;
  try {
    new RegExp(source, `${flags}u`);
  } catch (err) {
    // The engine's reason alone: its message quotes the pattern, whose bytes are the file's.
    const why = err instanceof Error ? (/: ([^:]*)$/.exec(err.message)?.[1] ?? 'a syntax error') : 'a syntax error';
    return `not a valid pattern (${why.replace(/[^\x20-\x7e]/g, '?').slice(0, 80)})`;
  }
  const list = tokens(source);
  if (typeof list === 'string') return list;
  let free = 0;
  let choices = 1;
  let depth = 0;
  let topLevelOr = false;
  for (let i = 0; i < list.length; i++) {
    const t = list[i]!;
    if (t.kind === 'open') depth++;
    else if (t.kind === 'close') depth--;
    else if (t.kind === 'or' && depth === 0) topLevelOr = true;
    if (t.kind !== 'repeat') continue;
    const before = list[i - 1];
    if (before?.kind === 'close' && t.max > 1)
      return 'a repeated group backtracks: repeat single characters or classes, or list the words';
    const after = list[i + 1];
    // A repeat followed by a character it cannot match, or by the line's end, gives back at most its own run.
    const guarded =
      before?.kind === 'atom' &&
      (after?.kind === 'end' ||
        (after?.kind === 'atom' &&
          after.literal !== undefined &&
          !new RegExp(`^(?:${before.src})$`, `${flags}u`).test(after.literal)));
    if (guarded || t.max === t.min) continue;
    if (t.max > BIG_REPEAT) free++;
    // Whatever its bound, each repeat that can backtrack multiplies the tries of the others.
    else choices *= t.max - t.min + 1;
  }
  if (choices > MAX_CHOICES) {
    return `repeats (?, {n,m}) that can backtrack one into another: ${choices > 1e6 ? 'over a million' : choices} ways to split a line between them, ${MAX_CHOICES} at most; follow each by a character it cannot match, or list the words in order ({"words": [...]})`;
  }
  if (matchesEveryLine(source, flags)) return 'it matches every line (it matches an empty text)';
  // `^a|b` is anchored in its first branch only.
  const anchored = list[0]?.kind === 'start' && !topLevelOr;
  const allowed = anchored ? 1 : 0;
  if (free > allowed) {
    return anchored
      ? `${free} repeats (*, +, {n,}) that can backtrack: one at most; follow a repeat by a character it cannot match, or list the words in order ({"words": [...]})`
      : `a repeat (*, +, {n,}) that can backtrack, in a pattern not anchored with ^: anchor it, follow the repeat by a character it cannot match, or list the words in order ({"words": [...]})`;
  }
  return { free };
}
