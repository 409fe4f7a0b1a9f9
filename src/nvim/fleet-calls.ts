// What the Lua side asks of the fleet beyond jobs: replies and menu answers to this Neovim's
// terminals, and the user's names, pins and order of any entry. Each call takes its op's message as
// its guard let it through (src/nvim/from-lua.ts), and answers a result or an error message for a person.
import type { FleetHub } from '../fleet/hub.js';
import type { FromLua } from './from-lua.js';
import { showInPeer } from './peer-show.js';

/** The most lines of a screen a menu's answer reads. */
const MENU_LINES = 150;

/** A reply to a terminal; one Lua kept while a Node process before this one let it wait waits again, on its terms. */
export async function terminalReply(hub: FleetHub, m: FromLua<'terminal_reply'>): Promise<{ pending: unknown }> {
  const terms = m.kept
    ? { waitMenus: m.kept.waitMenus === true, ...(m.kept.busyMs !== undefined ? { busyMs: m.kept.busyMs } : {}) }
    : {};
  return { pending: await hub.replies.reply(m.buf, m.text, m.typing === true, terms) };
}

/** A choice of the menu on a terminal's screen (its lines as Lua read them). */
export async function terminalChoose(hub: FleetHub, m: FromLua<'terminal_choose'>): Promise<{ option: unknown }> {
  return { option: await hub.replies.choose(m.buf, m.choice, m.lines.slice(-MENU_LINES)) };
}

/** An entry's name, pin or place, as the user set it. */
export async function mark(hub: FleetHub, m: FromLua<'mark'>): Promise<object> {
  await hub.mark(m.id, {
    ...(m.name !== undefined ? { name: m.name } : {}),
    ...(m.pinned !== undefined ? { pinned: m.pinned } : {}),
    ...(m.order !== undefined ? { order: m.order } : {}),
  });
  return {};
}

/** Each entry's new place in its group. */
export async function reorder(hub: FleetHub, m: FromLua<'reorder'>): Promise<object> {
  await hub.reorder(m.orders);
  return {};
}

/** Another Neovim shows its terminal: asked over its socket, answered within 1 s. */
export async function editorShow(hub: FleetHub, m: FromLua<'editor_show'>): Promise<{ shown: unknown }> {
  try {
    const shown = await showInPeer(m.server, m.buf);
    hub.peerAnswered(m.server, true);
    return { shown };
  } catch (err) {
    hub.peerAnswered(m.server, false);
    throw err;
  }
}
