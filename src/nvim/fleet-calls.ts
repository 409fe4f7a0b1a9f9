// What the Lua side asks of the fleet beyond jobs: replies and menu answers to this Neovim's
// terminals, and the user's names, pins and order of any entry. Each call answers a result or an
// error message for a person.
import type { FleetHub } from '../fleet/hub.js';
import { showInPeer } from './peer-show.js';
import { isObj } from '../shared/checks.js';

const buf = (v: unknown): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw new Error('a terminal buffer is needed');
  return v;
};

export async function fleetCall(hub: FleetHub, method: string, raw: unknown): Promise<unknown> {
  const args = isObj(raw) ? raw : {};
  switch (method) {
    case 'terminal_reply': {
      // A reply Lua kept while a Node process before this one let it wait: it waits again, on its terms.
      const kept = isObj(args.kept) ? args.kept : undefined;
      const busyMs = kept && typeof kept.busyMs === 'number' ? kept.busyMs : undefined;
      const terms = kept ? { waitMenus: kept.waitMenus === true, ...(busyMs !== undefined ? { busyMs } : {}) } : {};
      return {
        pending: await hub.replies.reply(
          buf(args.buf),
          typeof args.text === 'string' ? args.text : '',
          args.typing === true,
          terms,
        ),
      };
    }
    case 'terminal_choose': {
      const lines = Array.isArray(args.lines)
        ? args.lines.filter((l): l is string => typeof l === 'string').slice(-150)
        : [];
      const choice = typeof args.choice === 'number' ? args.choice : 0;
      return { option: await hub.replies.choose(buf(args.buf), choice, lines) };
    }
    case 'mark': {
      const id = typeof args.id === 'string' ? args.id : '';
      await hub.mark(id, {
        ...(typeof args.name === 'string' ? { name: args.name } : {}),
        ...(typeof args.pinned === 'boolean' ? { pinned: args.pinned } : {}),
        ...(typeof args.order === 'number' && Number.isFinite(args.order) ? { order: args.order } : {}),
      });
      return {};
    }
    case 'reorder': {
      // Each entry's new place in its group: `{ id, order }`, an order a whole number from 1.
      const orders = (Array.isArray(args.orders) ? args.orders : []).flatMap((o: unknown) =>
        isObj(o) && typeof o.id === 'string' && typeof o.order === 'number' && Number.isInteger(o.order) && o.order >= 1
          ? [{ id: o.id, order: o.order }]
          : [],
      );
      await hub.reorder(orders);
      return {};
    }
    case 'editor_show': {
      // Another Neovim shows its terminal: asked over its socket, answered within 1 s.
      const server = typeof args.server === 'string' ? args.server : '';
      try {
        const shown = await showInPeer(server, buf(args.buf));
        hub.peerAnswered(server, true);
        return { shown };
      } catch (err) {
        hub.peerAnswered(server, false);
        throw err;
      }
    }
    default:
      throw new Error(`unknown call ${JSON.stringify(method).slice(0, 60)}`);
  }
}
