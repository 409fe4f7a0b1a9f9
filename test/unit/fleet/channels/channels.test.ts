// The channels a notice goes out on, each its own file behind one interface: the places that tell
// (a Neovim, the daemon) take theirs by name, configure them with the user's settings and say each
// one's health as data (the Lua side reads no word of it).
import { describe, expect, it } from 'vitest';
import type { Notice } from '../../../../src/fleet/attention.js';
import { channelsOf } from '../../../../src/fleet/channels/index.js';
import { DesktopChannel } from '../../../../src/fleet/channels/desktop.js';
import { OuterTerminalChannel } from '../../../../src/fleet/channels/outer-terminal.js';
import { parseNotifySettings } from '../../../../src/fleet/notify-settings.js';

const quiet = { debug: (): void => undefined, warn: (): void => undefined };
const notice: Notice = {
  seq: 1,
  items: [],
  title: 'Claude Code is Waiting',
  body: 'fix parser',
  message: 'Claude Code is Waiting in fix parser',
  urgent: true,
  jump: 'term:3',
  replaces: null,
  burst: 1,
  quiet: false,
};

describe('the notice channels', () => {
  it('a Neovim tells on the desktop and through its terminal; the daemon, which runs in none, on the desktop', () => {
    expect(channelsOf('nvim', { env: {}, ...quiet }).map((c) => c.name)).toEqual(['Desktop', 'Terminal']);
    expect(channelsOf('daemon', { env: {}, ...quiet }).map((c) => c.name)).toEqual(['Desktop']);
  });

  it('the desktop says why it tells nothing: off, or no notifier found', () => {
    const desktop = new DesktopChannel({ env: { PATH: '' }, ...quiet });
    desktop.configure(parseNotifySettings({ desktop: { enabled: false } }).settings);
    expect(desktop.health()).toEqual({
      name: 'Desktop',
      ok: false,
      word: 'off (notify.desktop.enabled)',
      problems: [],
    });
    desktop.configure(parseNotifySettings({}).settings);
    expect(desktop.health()).toMatchObject({ ok: false, word: expect.stringMatching(/notify-send .*not on PATH/) });
    // Told nothing, and adds nothing to the editor's own notice.
    expect(desktop.tell(notice)).toEqual({});
  });

  it('the outer terminal adds its notification and bell to the editor’s notice, as the settings say', () => {
    const terminal = new OuterTerminalChannel({ env: {}, ...quiet });
    terminal.configure(parseNotifySettings({ terminal: { osc: 9, bell: true } }).settings);
    const parts = terminal.tell(notice);
    expect(parts.bell).toBe(true);
    expect(parts.osc).toContain('\x1b]9;');
    expect(parts.osc).toContain('Claude Code is Waiting');
    expect(terminal.health()).toEqual({ name: 'Terminal', ok: true, word: 'OSC 9; bell on; title off', problems: [] });
    terminal.configure(parseNotifySettings({ terminal: { osc: false } }).settings);
    expect(terminal.tell(notice)).toEqual({ osc: '', bell: false });
    expect(terminal.health().word).toBe('no OSC notification (off); bell off; title off');
  });
});
