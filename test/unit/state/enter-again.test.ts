// The Enter an input line lost: given again while the text written stands there, and only then.
import { describe, expect, it } from 'vitest';
import { standsIn } from '../../../src/state/enter-again.js';

describe('the text written stands in the input line', () => {
  it('as it was written, or its start where the line cuts a long one', () => {
    expect(standsIn('go on please', 'go on please')).toBe(true);
    expect(standsIn('go  on\nplease', 'go on please')).toBe(true);
    const long = 'a reply long enough that the input line cuts it at the edge of the screen somewhere';
    expect(standsIn(long.slice(0, 50), long)).toBe(true);
  });
  it('not a draft of the user’s, the text with more typed after it, a short start, or nothing', () => {
    expect(standsIn('something else', 'go on please')).toBe(false);
    expect(standsIn('go on please and more', 'go on please')).toBe(false);
    expect(standsIn('go on', 'go on please')).toBe(false);
    expect(standsIn('', 'go on please')).toBe(false);
  });
});
