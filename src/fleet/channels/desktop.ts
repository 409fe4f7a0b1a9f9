// The desktop's notifier (notify-send, terminal-notifier, osascript, or the user's command): found on
// the user's settings, its capabilities learnt once (a bounded --help), each notice one run of it.
import { Desktop, findNotifier, NOTICE_VARS, probe, runsShell } from '../desktop.js';
import type { Notice } from '../attention.js';
import type { NotifySettings } from '../notify-settings.js';
import type { ChannelContext, ChannelHealth, EditorParts, NoticeChannel } from './channel.js';

/** :checkhealth's word on a notifier command that is a shell. */
const SHELL_TEMPLATE = `notify.desktop.command runs a shell: in its script {title}, {body} and {urgency} become "$${NOTICE_VARS.title}", "$${NOTICE_VARS.body}" and "$${NOTICE_VARS.urgency}" (the texts are never spliced into it); a program given {title} and {body} as its own arguments needs no shell`;

export class DesktopChannel implements NoticeChannel {
  readonly name = 'Desktop';
  private desktop?: Desktop;
  private why = 'not looked for yet';
  /** The notifier's capabilities being learnt (bounded): a notice meanwhile waits for them. */
  private probing?: Promise<void>;

  constructor(private readonly ctx: ChannelContext) {}

  configure(settings: NotifySettings): void {
    this.stop();
    this.desktop = undefined;
    this.probing = undefined;
    if (!settings.desktop.enabled) {
      this.why = 'off (notify.desktop.enabled)';
      return;
    }
    const found = findNotifier(settings.desktop.command, this.ctx.env);
    if (!found.ok) {
      this.why = found.why;
      return;
    }
    this.why = '';
    this.desktop = this.newDesktop(found.notifier);
    const asked = this.desktop;
    const probing = probe(found.notifier).then((n) => {
      if (this.desktop === asked) this.desktop = this.newDesktop(n);
      if (this.probing === probing) this.probing = undefined;
    });
    this.probing = probing;
  }

  tell(notice: Notice): Partial<EditorParts> {
    if (this.probing) void this.probing.then(() => this.desktop?.show(notice));
    else this.desktop?.show(notice);
    return {};
  }

  health(): ChannelHealth {
    const n = this.desktop?.notifier;
    if (!n) return { name: this.name, ok: false, word: this.why, problems: [] };
    return {
      name: this.name,
      ok: true,
      word: `${n.exe}${n.actions ? ' (with "Go there")' : ''}${n.replace ? ' (a summary replaces its burst)' : ''}`,
      problems: runsShell(n) ? [SHELL_TEMPLATE] : [],
    };
  }

  stop(): void {
    this.desktop?.stop();
  }

  /** A notifier's runs; with no place to go there, no "Go there" is offered. */
  private newDesktop(n: Desktop['notifier']): Desktop {
    const { jump, started } = this.ctx;
    return new Desktop(
      jump ? n : { ...n, actions: false },
      { debug: (m) => this.ctx.debug(m), warn: (m) => this.ctx.warn(m) },
      jump,
      started,
    );
  }
}
