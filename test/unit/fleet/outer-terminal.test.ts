import { describe, expect, it } from 'vitest';
import { oscKind, oscNotification, parseTmuxClient, tmuxWrap } from '../../../src/fleet/outer-terminal.js';

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

  it("inside tmux, 'auto' goes by the terminal tmux's client runs in (its own TERM says tmux)", () => {
    const inTmux = { TMUX: '/tmp/tmux-0/default,1,0', TERM: 'tmux-256color', TERM_PROGRAM: 'tmux' };
    expect(oscKind('auto', inTmux)).toBeNull();
    expect(oscKind('auto', inTmux, parseTmuxClient('xterm-ghostty\tghostty 1.1.3\n'))).toBe('777');
    expect(oscKind('auto', inTmux, parseTmuxClient('xterm-256color\tWezTerm 20240203-110809-5046fc22\n'))).toBe('777');
    expect(oscKind('auto', inTmux, parseTmuxClient('xterm-kitty\t\n'))).toBe('99');
    expect(oscKind('auto', inTmux, parseTmuxClient('xterm-256color\tkitty(0.35.2)\n'))).toBe('99');
    expect(oscKind('auto', inTmux, parseTmuxClient('xterm-256color\tiTerm2 3.5.0\n'))).toBe('9');
    expect(oscKind('auto', inTmux, parseTmuxClient('xterm-256color\t\n'))).toBeNull();
    // What tmux prints is another program's: a control character in it is no answer.
    expect(parseTmuxClient('xterm\x1b]0;x\x07\tghostty\n')).toBeUndefined();
  });

  it('OSC 9, 777 and 99 carry the title and body, each terminated', () => {
    expect(oscNotification('9', 'claude main: Claude Code Waiting', 'Do you want to proceed?', 1, {})).toBe(
      '\x1b]9;claude main: Claude Code Waiting: Do you want to proceed?\x1b\\',
    );
    expect(oscNotification('777', 'claude main: Waiting', 'Do you want to proceed?', 1, {})).toBe(
      '\x1b]777;notify;claude main: Waiting;Do you want to proceed?\x1b\\',
    );
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

  it('OSC 9 text never begins with digits and ; (a job named 4;3;100 is no progress command of Windows Terminal)', () => {
    for (const name of ['4;3;100', '4;0', '9;x', ' 4;1;50', '\x1b4;2;1']) {
      const seq = oscNotification('9', `${name}: Codex Waiting`, 'Run it?', 1, {});
      expect(seq.startsWith('\x1b]9;'), name).toBe(true);
      expect(seq.slice('\x1b]9;'.length), name).not.toMatch(/^\d+;/);
      expect(seq, name).toContain('Codex Waiting: Run it?');
    }
    expect(oscNotification('9', 'writer: Codex Waiting', 'Run it?', 1, {})).toBe(
      '\x1b]9;writer: Codex Waiting: Run it?\x1b\\',
    );
  });
});
