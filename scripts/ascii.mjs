// A bundle written in ASCII alone (scripts/build.mjs).
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * `text` with every character past ASCII written as its `\\uXXXX` escape (esbuild leaves those of regular
 * expressions as they are): V8 keeps a script's source as long as the process runs, and a source with
 * one such character is kept at two bytes a character — a job's host, which lives as long as its job,
 * kept 1.2 MB for it. The escape means the same character in a string, a template, a regular expression
 * (with the u flag too: a surrogate pair escaped is one code point) and a name.
 */
export function asciiOnly(text) {
  // A character escaped by a backslash would become an escaped backslash: none may be written so.
  if (/\\[^\x00-\x7f]/.test(text)) throw new Error('a backslash before a character past ASCII');
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Writes `file` again in ASCII alone when it is not. */
export function writeAsciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  let ascii;
  try {
    ascii = asciiOnly(text);
  } catch (err) {
    throw new Error(`${file}: ${err.message}`);
  }
  if (ascii !== text) writeFileSync(file, ascii);
}
