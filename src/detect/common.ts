import type { LineRule, Matcher } from './types.js';

/**
 * A completion line, by its shape and not by a word list: a spinner glyph at the start of the line
 * (`✻`, U+273B, is the one Claude Code 2.1 prints), a past-tense verb, `for` and a duration
 * (`✽ Worked for 2m 30s`, `✻ Baked for 10s`).
 */
export const COMPLETION =
  /(?:^\s*[✶✻✽✳✢·∗*]\s*([A-Z][a-zé]+(?:ed|t))|\b(Saut[ée]*d|Cogitated))\s+for\s+(?:\d+\s*[hm]\s*)*\d+\s*[hms]\b/;

/**
 * What names one completion across redraws. Claude Code draws the same completion again with
 * another verb (seen on 2.1.197: `✻ Baked for 5s` became `✻ Worked for 5s`, then `✻ Brewed for 5s`),
 * so the key is the line from its duration on.
 */
export function completionKey(line: string): string {
  const m = /\bfor\s+(?:\d+\s*[hm]\s*)*\d+.*$/.exec(line);
  return (m ? m[0] : line).trim();
}

/**
 * A line where `first` matches somewhere before the last of the `then` strings: what `first.*then`
 * says, in linear time (`.*` between two patterns backtracks over long lines that almost match).
 * `first` must itself be linear (a character class and spaces).
 */
export function ordered(first: RegExp, ...then: string[]): Matcher {
  return {
    test(text: string): boolean {
      const at = Math.max(...then.map((t) => text.lastIndexOf(t)));
      return at > 0 && first.test(text.slice(0, at));
    },
  };
}

/** A text that every one of `patterns` matches (each linear on its own). */
export function both(...patterns: RegExp[]): Matcher {
  return { test: (text: string): boolean => patterns.every((p) => p.test(text)) };
}

/** Braille spinner frames (U+2801..U+28FF) as agents draw them in titles and status rows. */
export const BRAILLE = '[\\u2801-\\u28ff]';

/**
 * A spinner row's start: a spinner glyph (a braille frame, Claude Code's `✶ ✻ ✽ ✳ ✢ · *`, a
 * quarter circle), a capitalised verb in -ing and an ellipsis (`✶ Baking…`, `⠙ Thinking...`). Answer
 * items (`•`, `●`, `⏺`) are not spinner glyphs.
 */
export const SPINNER = /^\s*(?:[·✢*✶✻✽✳∗◐◑◒◓]|[\u2801-\u28ff])\s*[A-Z][a-z]+ing(?:…|\.\.\.)/;

/** The rules that hold for every agent. */
export const SHARED_RULES: readonly LineRule[] = [
  { name: 'shared/completion', state: 'stopped', test: COMPLETION, completion: true },
  // In a spinner row (`✶ Baking… (3s · esc to interrupt)`), or in the footer under it (2.1.332:
  // `⏵⏵ auto mode on (shift+tab to cycle) · esc to interrupt · ← for agents`).
  { name: 'shared/esc-to-interrupt', state: 'working', test: /esc to interrupt/i, chrome: true, detail: 'working' },
  { name: 'shared/glyph-ellipsis', state: 'working', test: ordered(/[✽⏺]/, '…', '...') },
  // A spinner row in any agent and version: a spinner glyph, a verb in -ing and an ellipsis, whatever
  // follows it (a task's name, a duration, a token count, an interrupt hint in other words).
  { name: 'shared/spinner', state: 'working', test: SPINNER },
  {
    name: 'shared/approval-words',
    state: 'waiting',
    test: /Allow once|Allow always|\bDeny\b|Do you want to proceed\?|\(y\/n\)|requires approval/i,
  },
  // Chrome: it tells no more than that the agent waits for a prompt.
  { name: 'shared/shortcuts-hint', state: 'idle', test: /\? for shortcuts/, hint: true, detail: 'idle' },
];
