// Text that MadoHub writes into an agent (a reply, a route's payload, a review buffer, a job's
// prompt) arrives as one paste whatever its bytes: it never types a key. Every path that writes text
// into a terminal or a PTY builds its bytes here.

/** Control pictures for C0 (U+2400 + code) and DEL (U+2421): a control character shows, and acts not. */
const PICTURE_BASE = 0x2400;
const DEL_PICTURE = '\u2421';
/** A C1 control (U+0080–U+009F, which a UTF-8 terminal may read as ESC + a letter). */
const C1_PICTURE = '\ufffd';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** What a paste carries from the text: no NUL; line ends as `\n`; every other control made visible. */
export function pasteText(text: string, bracketed: boolean): string {
  // Lone surrogates would be written as U+FFFD anyway: said here, where the length is known.
  const s = text.replace(LONE_SURROGATE, '\ufffd').replace(/\r\n?/g, '\n');
  let out = '';
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const control = c < 0x20 || c === 0x7f || (c >= 0x80 && c <= 0x9f);
    if (!control) continue;
    let instead: string;
    if (c === 0) instead = '';
    else if (c === 0x0a || c === 0x09) {
      // Inside a bracketed paste a newline and a tab are text; without one they are keys (Enter, Tab).
      if (bracketed) continue;
      instead = ' ';
    } else if (c === 0x7f) instead = DEL_PICTURE;
    else if (c >= 0x80) instead = C1_PICTURE;
    else instead = String.fromCharCode(PICTURE_BASE + c);
    out += s.slice(from, i) + instead;
    from = i + 1;
  }
  return out + s.slice(from);
}

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/**
 * The bytes that paste `text` into a program: between the bracketed-paste marks when it asked for
 * them (a TUI agent does), else as plain text on one line. Either way nothing in it is a key: an
 * `ESC[201~` inside the text cannot end the paste, and no Ctrl-C, Enter or Escape gets through.
 */
export function pasteBytes(text: string, bracketed: boolean): string {
  const body = pasteText(text, bracketed);
  return bracketed ? PASTE_START + body + PASTE_END : body;
}
