// A notification through the terminal Neovim runs in: OSC 9 (iTerm2, WezTerm, Ghostty, Windows
// Terminal), OSC 777 (foot, WezTerm, Ghostty, urxvt) or OSC 99 (kitty), passed through tmux when
// Neovim runs inside it. Pure: the bytes, which the Lua side writes to its UI's terminal.
import { noControl } from '../shared/text.js';

export type OscKind = '9' | '777' | '99';
export type OscSetting = 'auto' | OscKind | false;

/** The longest title and body written (terminals cut them anyway). */
const MAX_TITLE = 120;
const MAX_BODY = 400;

/**
 * The terminal tmux's client runs in, as tmux tells it (`#{client_termname}`, its TERM there, and
 * `#{client_termtype}`, what the terminal says it is: `ghostty 1.1.3`, `WezTerm 20240203`, `kitty(0.35.2)`).
 */
export interface TmuxClient {
  termname: string;
  termtype: string;
}

/** What tmux's `display-message -p '#{client_termname}\t#{client_termtype}'` printed, or undefined. */
export function parseTmuxClient(out: string): TmuxClient | undefined {
  const [termname, termtype] = out.replace(/\r?\n$/, '').split('\t');
  if (termname === undefined || /[\x00-\x1f]/.test(out.replace(/\t|\r?\n$/g, ''))) return undefined;
  return { termname: termname.slice(0, 80), termtype: (termtype ?? '').slice(0, 80) };
}

/**
 * The kind of notification the terminal understands, by what its environment says of it ('auto'),
 * inside tmux by what tmux says of its client's terminal, else the user's; null when none is known
 * (an unknown terminal gets none: some print what they miss).
 */
export function oscKind(setting: OscSetting, env: NodeJS.ProcessEnv, client?: TmuxClient): OscKind | null {
  if (setting !== 'auto') return setting || null;
  const term = client?.termname || (env.TERM ?? '');
  const type = client?.termtype ?? '';
  const program = client ? '' : (env.TERM_PROGRAM ?? '');
  const lcTerminal = env.LC_TERMINAL ?? '';
  if ((!client && env.KITTY_WINDOW_ID) || term === 'xterm-kitty' || /^kitty\b/i.test(type)) return '99';
  if (
    term.startsWith('foot') ||
    program === 'WezTerm' ||
    program === 'ghostty' ||
    term === 'xterm-ghostty' ||
    term.startsWith('rxvt') ||
    /^(?:WezTerm|ghostty|foot)\b/i.test(type)
  )
    return '777';
  if (program === 'iTerm.app' || lcTerminal === 'iTerm2' || env.WT_SESSION || /^iTerm2\b/.test(type)) return '9';
  return null;
}

/** Inside tmux a sequence reaches the outer terminal only wrapped as passthrough (`allow-passthrough on`). */
export function tmuxWrap(sequence: string): string {
  return `\x1bPtmux;${sequence.replaceAll('\x1b', '\x1b\x1b')}\x1b\\`;
}

/** One line of text fit for an OSC payload: no control character, no `;` where it separates fields. */
function payload(text: string, max: number, semicolons: boolean): string {
  const t = noControl(text).replace(/\s+/g, ' ').trim().slice(0, max);
  return semicolons ? t : t.replaceAll(';', ',');
}

/**
 * OSC 9's text, never read as one of its commands: text that begins with digits and `;` (a job named
 * `4;3;100`) is Windows Terminal's and ConEmu's progress (`9;4;…`) or another numbered command.
 */
function osc9Text(text: string): string {
  return /^\d+;/.test(text) ? `MadoHub: ${text}` : text;
}

/** The notification's bytes for the outer terminal (`id` numbers kitty's, so that a later one replaces it). */
export function oscNotification(
  kind: OscKind,
  title: string,
  body: string,
  id: number,
  env: NodeJS.ProcessEnv,
): string {
  let seq: string;
  switch (kind) {
    case '9':
      seq = `\x1b]9;${osc9Text(payload(`${title}: ${body}`, MAX_TITLE + MAX_BODY, true))}\x1b\\`;
      break;
    case '777':
      seq = `\x1b]777;notify;${payload(title, MAX_TITLE, false)};${payload(body, MAX_BODY, true)}\x1b\\`;
      break;
    case '99': {
      // kitty: the title, then the body, one notification (`i`), shown once the body is in (`d=1`).
      const i = `madohub${id % 1000}`;
      seq = `\x1b]99;i=${i}:d=0:p=title;${payload(title, MAX_TITLE, true)}\x1b\\\x1b]99;i=${i}:d=1:p=body;${payload(body, MAX_BODY, true)}\x1b\\`;
      break;
    }
  }
  return env.TMUX ? tmuxWrap(seq) : seq;
}
