// What Lua tells of a terminal: its screen, checked (by its op's guard) and bounded; the title Neovim
// gives a terminal whose program set none is no title.
import { describe, expect, it } from 'vitest';
import { detectScreen } from '../../../src/agents/index.js';
import { parseFromLua } from '../../../src/nvim/from-lua.js';
import type { FromLua } from '../../../src/nvim/from-lua.js';
import { screenOf } from '../../../src/nvim/messages.js';

/** A screen message as the Node side takes it: guarded, then read. */
function screen(value: Record<string, unknown>): ReturnType<typeof screenOf> | string {
  const m = parseFromLua({ op: 'screen', ...value });
  if (typeof m === 'string') return m;
  return m.op === 'screen' ? screenOf(m satisfies FromLua<'screen'>) : 'not a screen';
}

describe('a terminal’s screen from Lua', () => {
  it('keeps a title its program set, and drops Neovim’s own term:// name', () => {
    expect(screen({ buf: 2, lines: ['$ '], title: '✳ Claude Code' })).toMatchObject({ title: '✳ Claude Code' });
    const msg = screen({ buf: 2, lines: ['root@vm:~/proj# '], title: 'term://~/proj//8684:/bin/bash' });
    if (typeof msg === 'string') throw new Error(msg);
    expect(msg.title).toBe('');
    // An idle shell's detail is then not Neovim's buffer name.
    expect(detectScreen({ lines: msg.lines, title: msg.title })).toMatchObject({ agent: 'shell', state: 'idle' });
    expect(detectScreen({ lines: msg.lines, title: msg.title }).detail).not.toContain('term://');
  });

  it('refuses what is not a screen, with why', () => {
    expect(screen({ buf: 0, lines: [] })).toBe("screen: field 'buf' must be a whole number from 1 to 2147483647");
    expect(parseFromLua([1, 2])).toBe('a request is a JSON object');
    expect(screen({ buf: 3, lines: ['a', 7, 'b'] })).toBe("screen: field 'lines' must be a list of strings");
    expect(screen({ buf: 3, lines: ['a'], pid: -1 })).toBe(
      "screen: field 'pid' must be a whole number from 1 to 2147483647",
    );
    expect(parseFromLua({ op: 'exit', buf: 'x', status: 0 })).toBe(
      "exit: field 'buf' must be a whole number from 1 to 2147483647",
    );
    expect(parseFromLua({ op: 'forget' })).toBe("forget: field 'buf' is missing");
  });
});
