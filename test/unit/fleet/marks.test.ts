import { describe, expect, it } from 'vitest';
import { cleanName, keptMarks } from '../../../src/fleet/marks.js';

describe('the marks a user gives an entry', () => {
  it('a name: no control characters, trimmed, bounded', () => {
    expect(cleanName('  fix\x1b[31m it\n ')).toBe('fix [31m it');
    expect(cleanName('x'.repeat(500))).toHaveLength(120);
  });

  it('a terminal’s marks back from Lua: checked field by field, none from a hostile value', () => {
    expect(keptMarks({ id: 'term:12', name: ' main ', pinned: true, order: 2 })).toEqual({
      id: 'term:12',
      marks: { name: 'main', pinned: true, order: 2 },
    });
    expect(keptMarks({ id: 'term:12', name: '   ', pinned: 'yes', order: Infinity })).toBeUndefined();
    for (const v of [null, 'term:1', [], { id: 'job:abc', name: 'x' }, { id: 'term:1e9999', name: 'x' }])
      expect(keptMarks(v)).toBeUndefined();
  });
});
