// What Lua tells of a terminal: its screen, checked and bounded; the title Neovim gives a terminal
// whose program set none is no title.
import { describe, expect, it } from 'vitest';
import { detectScreen } from '../../../src/agents/index.js';
import { parseExit, parseForget, parseScreen } from '../../../src/nvim/messages.js';

describe('a terminal’s screen from Lua', () => {
  it('keeps a title its program set, and drops Neovim’s own term:// name', () => {
    expect(parseScreen({ buf: 2, lines: ['$ '], title: '✳ Claude Code' })?.title).toBe('✳ Claude Code');
    const msg = parseScreen({ buf: 2, lines: ['root@vm:~/proj# '], title: 'term://~/proj//8684:/bin/bash' });
    expect(msg?.title).toBe('');
    // An idle shell's detail is then not Neovim's buffer name.
    expect(detectScreen({ lines: msg!.lines, title: msg!.title })).toMatchObject({ agent: 'shell', state: 'idle' });
    expect(detectScreen({ lines: msg!.lines, title: msg!.title }).detail).not.toContain('term://');
  });

  it('refuses what is not a screen, and keeps only strings of its lines', () => {
    expect(parseScreen({ buf: 0, lines: [] })).toBeNull();
    expect(parseScreen([1, 2])).toBeNull();
    expect(parseScreen({ buf: 3, lines: ['a', 7, 'b'], pid: -1 })).toMatchObject({
      buf: 3,
      lines: ['a', 'b'],
      pid: undefined,
    });
    expect(parseExit({ buf: 'x' })).toBeNull();
    expect(parseForget(null)).toBeNull();
  });
});
