import { describe, expect, it } from 'vitest';
import { agentModule } from '../../../src/agents/index.js';
import { MAX_OSC, oscNotification } from '../../../src/detect/osc.js';
import captured from '../../fixtures/records/claude-osc.json';

describe('a desktop notification a terminal program asks for', () => {
  it("reads Claude Code 2.1.332's, by each of its channels (OSC 9, 777, 99 in tmux's passthrough)", () => {
    expect(captured.iterm2.map(oscNotification)).toEqual([{ osc: 9, title: '', body: 'Claude needs your permission' }]);
    expect(captured.ghostty.map(oscNotification)).toEqual([
      { osc: 777, title: 'Claude Code', body: 'Claude needs your permission' },
    ]);
    expect(captured['kitty-in-tmux'].map(oscNotification)).toEqual([
      { osc: 99, title: 'Claude Code', body: '' },
      { osc: 99, title: '', body: 'Claude needs your permission' },
      undefined, // `a=focus`: no text.
    ]);
  });
  it('as Neovim hands it over: ESC ] and no terminator, or a terminator', () => {
    expect(oscNotification('\u001b]9;hello')).toEqual({ osc: 9, title: '', body: 'hello' });
    expect(oscNotification('9;hello\u0007')).toEqual({ osc: 9, title: '', body: 'hello' });
    expect(oscNotification('\u001b]777;notify;T;a;b\u001b\\')).toEqual({ osc: 777, title: 'T', body: 'a;b' });
  });
  it("kitty's base64 payload", () => {
    expect(oscNotification(`\u001b]99;i=1:e=1:p=body;${btoa('Fertig ✓'.replace(/✓/, 'ok'))}`)).toEqual({
      osc: 99,
      title: '',
      body: 'Fertig ok',
    });
    expect(oscNotification('\u001b]99;e=1;@@@not base64')).toBeUndefined();
  });
  it('is none: ConEmu commands (progress), other OSCs, empty texts, unknown parts', () => {
    for (const s of [
      '\u001b]9;4;1;50',
      '\u001b]9;1;2',
      '\u001b]0;title',
      '\u001b]777;other;x',
      '\u001b]9;   ',
      '\u001b]99;p=icon;x',
      '\u001b]99;nosemicolon',
      '',
      '\u001b]777;notify;;',
    ])
      expect(oscNotification(s), JSON.stringify(s)).toBeUndefined();
  });
  it('carries no control character, and is bounded', () => {
    const n = oscNotification(`\u001b]9;a\u001b[31mb\u0000c${'x'.repeat(5000)}`)!;
    expect(n.body).not.toMatch(/[\u0000-\u001f]/);
    expect(n.body.length).toBeLessThanOrEqual(200);
    expect(MAX_OSC).toBe(1024);
  });
  it("Claude Code's module: its permission notification waits (a repeat of the dialog); others tell nothing", () => {
    const claude = agentModule('claude');
    for (const seq of [...captured.iterm2, ...captured.ghostty, captured['kitty-in-tmux'][1]!]) {
      expect(claude.notification!(oscNotification(seq)!)).toEqual({
        state: 'waiting',
        detail: 'needs your permission',
        repeat: true,
      });
    }
    expect(claude.notification!({ osc: 9, title: '', body: 'Claude is waiting for your input' })).toBeUndefined();
  });
});
