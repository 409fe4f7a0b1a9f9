import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../src/routes/engine.js';
import { commandWords, endArg, optionsOf, settingsOf } from '../../../src/nvim/route-args.js';

describe('what Lua sends about routes, checked', () => {
  it('settings: the defaults for a missing or wrong value; templates with a bad name or no text dropped, long ones cut', () => {
    expect(settingsOf(undefined)).toBe(DEFAULT_SETTINGS);
    const s = settingsOf({
      maxBytes: 1e12,
      busyMs: 1.5,
      templates: { review: 'look: {text}', 'bad name': 'x', n: 3, long: 'y'.repeat(20000) },
    });
    expect(s.maxBytes).toBe(DEFAULT_SETTINGS.maxBytes);
    expect(s.busyMs).toBe(DEFAULT_SETTINGS.busyMs);
    expect(Object.keys(s.templates)).toEqual(['review', 'long']);
    expect(s.templates.long).toHaveLength(16 * 1024);
    expect(settingsOf({ maxBytes: 4096, busyMs: 5000 })).toMatchObject({ maxBytes: 4096, busyMs: 5000 });
  });

  it('options keep only values of their type; ends are names or whole buffer numbers; words are strings, bounded', () => {
    expect(optionsOf({ on: 'turn', hops: '3', once: 'yes', review: true, send: 1 })).toEqual({
      on: 'turn',
      send: undefined,
      template: undefined,
      hops: undefined,
      once: false,
      review: true,
    });
    expect(optionsOf(null)).toMatchObject({ once: false, review: false });
    expect([endArg('codex'), endArg(12), endArg(1.5), endArg({})]).toEqual(['codex', '12', undefined, undefined]);
    expect(commandWords(['list', 3, 'x'])).toEqual(['list', 'x']);
    expect(commandWords(Array(50).fill('w'))).toHaveLength(20);
    expect(commandWords('list')).toEqual([]);
  });
});
