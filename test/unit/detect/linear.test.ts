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
  ])('%s is refused', (_what, source, why) => {
    expect(patternProblem(source)).toMatch(why);
  });
});
