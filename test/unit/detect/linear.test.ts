import { describe, expect, it } from 'vitest';
import { MAX_PATTERN, patternProblem } from '../../../src/detect/linear.js';

describe("a user's pattern", () => {
  it.each([
    ['words', 'Approve this edit\\?'],
    ['an anchored line with one free repeat', '^\\s*Run .*\\?$'],
    ['repeats each followed by a character they cannot match', 'Allow once\\s+Allow always\\s+Reject'],
    ['a bounded repeat', '^[─━]{3,8} Plan'],
    ['a class and a lazy repeat', '^◆ [A-Z][a-z]+?ing…'],
    ['named and non-capturing groups, ? on a group', '^(?:> )?(?<verb>Thinking|Working)…'],
    ['unicode escapes', '^\\u{2733} \\p{Lu}\\w*'],
    ['a few optional characters', '^colou?r:? \\d{1,2}s?$'],
    ['optional characters each followed by one they cannot match', '^a?b?c?[a-c]{0,3}d'],
    ['an empty line only', '^$'],
  ])('%s is taken', (_what, source) => {
    expect(patternProblem(source)).toBeNull();
  });

  it.each([
    ['empty', '', /empty pattern/],
    ['too long', `a${'b'.repeat(MAX_PATTERN)}`, /longer than 200/],
    ['invalid', '([a-z', /not a valid pattern/],
    ['a backreference', '(a)\\1', /backreferences/],
    ['a named backreference', '(?<x>a)\\k<x>', /backreferences/],
    ['a lookahead', 'foo(?=bar)', /lookarounds/],
    ['a lookbehind', '(?<!x)foo', /lookarounds/],
    ['a repeated group (exponential)', '^(a|ab)*c$', /repeated group/],
    ['nested repeats', '(a+)+$', /repeated group/],
    ['a group repeated by braces', '(ab){2,}', /repeated group/],
    ['a free repeat anywhere', 'a.*b', /not anchored with \^: anchor it/],
    ['two free repeats anchored', '^.*a.*b', /2 repeats .* one at most/],
    ['a top-level | unanchors', '^x.*y|w', /not anchored/],
    ['a big bounded repeat counts as unbounded', 'a.{0,300}b', /not anchored/],
    // Small repeats chained: each is bounded, together they try a million splits of a line.
    [
      'twenty optional characters',
      `${'.?'.repeat(20)}X`,
      /over a million ways to split a line between them, 16 at most/,
    ],
    ['six small bounded repeats', `${'.{0,8}'.repeat(6)}X`, /531441 ways/],
    ['five optional characters, anchored', '^.?.?.?.?.?d', /32 ways to split/],
    ['a pattern that matches every line: ^', '^', /matches every line/],
    ['an empty group', '(?:)', /matches every line/],
    ['an optional character', 'x?', /matches every line/],
    ['a word edge or none', '\\b|\\B', /matches every line/],
  ])('%s is refused', (_what, source, why) => {
    expect(patternProblem(source)).toMatch(why);
  });

  it('an invalid pattern is refused with the engine’s reason alone, never the file’s bytes (an OSC 52 write, a BEL)', () => {
    const why = patternProblem('\x1b]52;c;aGk=\x07([a-z');
    expect(why).toMatch(/^not a valid pattern \(/);
    expect(why).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(why).not.toContain('52;c');
  });
});
