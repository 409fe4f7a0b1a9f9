import { describe, expect, it } from 'vitest';
import { oscKind, oscNotification, tmuxWrap } from '../../../src/fleet/outer-terminal.js';

describe('the notification written to the terminal Neovim runs in', () => {
  it("'auto' picks what the terminal takes, by its environment; an unknown terminal gets none", () => {
    expect(oscKind('auto', { TERM: 'xterm-kitty' })).toBe('99');
    expect(oscKind('auto', { KITTY_WINDOW_ID: '3', TERM: 'xterm-256color' })).toBe('99');
    expect(oscKind('auto', { TERM: 'foot' })).toBe('777');
    expect(oscKind('auto', { TERM_PROGRAM: 'WezTerm' })).toBe('777');
    expect(oscKind('auto', { TERM: 'xterm-ghostty' })).toBe('777');
    expect(oscKind('auto', { TERM_PROGRAM: 'iTerm.app' })).toBe('9');
    expect(oscKind('auto', { WT_SESSION: 'x' })).toBe('9');
    expect(oscKind('auto', { TERM: 'xterm-256color' })).toBeNull();
    expect(oscKind('auto', {})).toBeNull();
    // The user's choice stands, whatever the terminal; false is none.
    expect(oscKind('777', { TERM: 'xterm-kitty' })).toBe('777');
    expect(oscKind(false, { TERM: 'xterm-kitty' })).toBeNull();
  });

  it('OSC 9, 777 and 99 carry the title and body, each terminated', () => {
    expect(oscNotification('9', 'claude main: Claude Code Waiting', 'Do you want to proceed?', 1, {})).toBe('\x1b]9;claude main: Claude Code Waiting: Do you want to proceed?\x1b\\');
    expect(oscNotification('777', 'claude main: Waiting', 'Do you want to proceed?', 1, {})).toBe('\x1b]777;notify;claude main: Waiting;Do you want to proceed?\x1b\\');
    const kitty = oscNotification('99', 'the title', 'the body', 1003, {});
    expect(kitty).toBe('\x1b]99;i=madohub3:d=0:p=title;the title\x1b\\\x1b]99;i=madohub3:d=1:p=body;the body\x1b\\');
  });

  it('inside tmux, the sequence is wrapped as passthrough, its escapes doubled', () => {
    const plain = oscNotification('9', 't', 'b', 1, {});
    const wrapped = oscNotification('9', 't', 'b', 1, { TMUX: '/tmp/tmux-0/default,1,0' });
    expect(wrapped).toBe(tmuxWrap(plain));
    expect(wrapped).toBe('\x1bPtmux;\x1b\x1b]9;t: b\x1b\x1b\\\x1b\\');
  });

  it('what an agent put on its screen reaches the terminal without a control character, one line, bounded', () => {
    const hostile = 'a\x1b]0;pwned\x07b\x1b[31m\x9b2J\nnext\rline\x00;';
    for (const kind of ['9', '777', '99'] as const) {
      const seq = oscNotification(kind, hostile, hostile.repeat(2000), 1, {});
      // Only the sequence's own ESC … ESC \ framing: nothing of the text escapes it.
      const inner = seq.replaceAll(/\x1b\](?:9|777|99);/g, '').replaceAll('\x1b\\', '');
      expect(inner, kind).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      expect(seq.length, kind).toBeLessThan(1200);
    }
    // OSC 777 separates its fields with ';': a title cannot make a field of its own.
    expect(oscNotification('777', 'x;y', 'b', 1, {}).split(';')).toHaveLength(4);
  });
});
