// The terminal the editor runs in: an OSC notification (9, 777 or 99, through tmux when inside it) and
// a bell, written by the editor with its own notice (a channel of the Neovim side only).
import { execFile } from 'node:child_process';
import { oscKind, oscNotification, parseTmuxClient } from '../outer-terminal.js';
import type { TmuxClient } from '../outer-terminal.js';
import type { Notice } from '../attention.js';
import { DEFAULT_NOTIFY } from '../notify-settings.js';
import type { NotifySettings } from '../notify-settings.js';
import type { ChannelContext, ChannelHealth, EditorParts, NoticeChannel } from './channel.js';

export class OuterTerminalChannel implements NoticeChannel {
  readonly name = 'Terminal';
  private settings: NotifySettings['terminal'] = DEFAULT_NOTIFY.terminal;
  /** Inside tmux: the terminal its client runs in, as tmux says (asked once, bounded). */
  private tmuxClient?: TmuxClient;

  constructor(private readonly ctx: ChannelContext) {
    if (ctx.env.TMUX) this.askTmux();
  }

  configure(settings: NotifySettings): void {
    this.settings = settings.terminal;
  }

  tell(notice: Notice): Partial<EditorParts> {
    const kind = oscKind(this.settings.osc, this.ctx.env, this.tmuxClient);
    return {
      osc: kind ? oscNotification(kind, notice.title, notice.body, notice.burst, this.ctx.env) : '',
      bell: this.settings.bell,
    };
  }

  health(): ChannelHealth {
    const kind = oscKind(this.settings.osc, this.ctx.env, this.tmuxClient);
    const osc = kind
      ? `OSC ${kind}${this.ctx.env.TMUX ? ' through tmux' : ''}`
      : this.settings.osc === false
        ? 'no OSC notification (off)'
        : 'no OSC notification (no terminal known to take one; set notify.terminal.osc)';
    const word = `${osc}; bell ${this.settings.bell ? 'on' : 'off'}; title ${this.settings.title ? 'on' : 'off'}`;
    return { name: this.name, ok: true, word, problems: [] };
  }

  stop(): void {}

  /** Which terminal tmux's client runs in ('auto' inside tmux: its own TERM says only tmux). */
  private askTmux(): void {
    const pane = this.ctx.env.TMUX_PANE;
    const target = pane && /^%\d+$/.test(pane) ? ['-t', pane] : [];
    execFile(
      'tmux',
      ['display-message', '-p', ...target, '#{client_termname}\t#{client_termtype}'],
      { timeout: 1000, maxBuffer: 4096, env: this.ctx.env },
      (err, out) => {
        if (err) return this.ctx.debug(`tmux does not say its client's terminal: ${err.message}`);
        this.tmuxClient = parseTmuxClient(String(out));
      },
    );
  }
}
