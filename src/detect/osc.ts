// A desktop notification a program in a terminal asks its terminal for, as Neovim hands it over
// (|TermRequest|): OSC 9 (iTerm2: `9;text`), OSC 777 (urxvt, Ghostty, WezTerm: `777;notify;title;body`)
// and OSC 99 (kitty: `99;key=value:…;payload`, the title and the body in parts). Pure; hostile input.

import { noControl } from '../shared/text.js';

export interface TermNotification {
  osc: 9 | 777 | 99;
  title: string;
  body: string;
}

/** The most of a sequence read (a notification is a line; the rest is dropped). */
export const MAX_OSC = 1024;

const text = (s: string): string => noControl(s).replace(/\s+/g, ' ').trim().slice(0, 200);

/** tmux's passthrough (`ESC P tmux; …`, each ESC doubled), which a program run in tmux wraps it in. */
const TMUX = '\u001bPtmux;';

/**
 * The notification in one OSC sequence (with or without its ESC ] and its terminator, or wrapped in
 * tmux's passthrough), or undefined.
 */
export function oscNotification(sequence: string): TermNotification | undefined {
  let raw = sequence.slice(0, MAX_OSC);
  if (raw.startsWith(TMUX)) raw = raw.slice(TMUX.length).replace(/\u001b\u001b/g, '\u001b');
  const bounded = raw.replace(/^\u001b\]/, '').replace(/(?:\u0007|\u001b\\?)+$/, '');
  const at = bounded.indexOf(';');
  if (at < 0) return undefined;
  const code = bounded.slice(0, at);
  const rest = bounded.slice(at + 1);
  if (code === '9') {
    // ConEmu's OSC 9 commands (`9;4;1;50`: progress) are numbers: no notification.
    if (/^\d+(?:;|$)/.test(rest)) return undefined;
    const body = text(rest);
    return body ? { osc: 9, title: '', body } : undefined;
  }
  if (code === '777') {
    const [kind, title = '', ...body] = rest.split(';');
    if (kind !== 'notify') return undefined;
    const n = { osc: 777 as const, title: text(title), body: text(body.join(';')) };
    return n.title || n.body ? n : undefined;
  }
  if (code === '99') {
    const semi = rest.indexOf(';');
    if (semi < 0) return undefined;
    const meta = new Map(
      rest
        .slice(0, semi)
        .split(':')
        .map((kv) => [kv.split('=')[0] ?? '', kv.slice(kv.indexOf('=') + 1)] as const),
    );
    let payload = rest.slice(semi + 1);
    if (meta.get('e') === '1') {
      try {
        payload = new TextDecoder().decode(Uint8Array.from(atob(payload), (c) => c.charCodeAt(0)));
      } catch {
        return undefined;
      }
    }
    const part = meta.get('p') ?? 'title';
    if (part !== 'title' && part !== 'body') return undefined;
    const t = text(payload);
    if (!t) return undefined;
    return part === 'title' ? { osc: 99, title: t, body: '' } : { osc: 99, title: '', body: t };
  }
  return undefined;
}
