// Text helpers shared by every layer.

/**
 * Text from a job file or a user, made safe to print to a terminal: control characters (which could
 * move the cursor, change the title, or answer terminal queries) become `?`.
 */
export function safeText(text: string): string {
  return text
    .replace(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g, '?')
    .replace(BIDI, '')
    .replace(/[\n\t]/g, ' ');
}

/**
 * The bidirectional controls (embeddings, overrides, isolates, marks): they reorder what is printed
 * after them (`txt.exe` shown for `exe.txt`), so text from outside never carries them.
 */
export const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The longest detail (the line that tells a state, a job's detail) kept anywhere. */
export const MAX_DETAIL = 120;

/** `text` on one line (runs of white space made one space, ends trimmed), cut to `max` characters with `…`. */
export function clip(text: string, max = MAX_DETAIL): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/**
 * `text` with its control characters (C0, DEL, C1) made spaces and its bidirectional controls dropped: what
 * an agent prints, shown on one line by `clip`.
 */
export function noControl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').replace(BIDI, '');
}

/** A name or an id from outside, for a message: printable ASCII only (others `?`), `max` characters at most. */
export function printable(text: string, max: number): string {
  return text.slice(0, max).replace(/[^\x20-\x7e]/g, '?');
}

/** How many of `lines` stand above the blank ones at their end (a screen's rows without its empty bottom). */
export function textRows(lines: readonly string[]): number {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return end;
}

/** `text` broken at spaces into lines of at most `width` characters. */
export function wrapWords(text: string, width = 100): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line].join('\n');
}
