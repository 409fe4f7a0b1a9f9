// What changed, pushed to Lua once per batch: the terminals' state changes and the fleet's entries
// put and removed while one message (or one timer) of the Node side ran go as one `changes` message,
// sent when that work is done (a microtask later), so that Lua redraws once.
import type { FleetEntry } from '../fleet/entry.js';
import type { FleetChange } from '../fleet/fleet.js';
import type { FleetSpending } from '../fleet/spending.js';
import type { StateChange } from '../state/tracker.js';
import type { LuaNotice } from './attention.js';
import type { LuaWire } from './lua-wire.js';

interface Batch {
  states: StateChange[];
  put: Map<string, FleetEntry>;
  removed: Set<string>;
  notices: LuaNotice[];
  wanted: string[];
  /** What the fleet spent today, when it changed. */
  spending?: FleetSpending;
}

export class LuaPush {
  private batch: Batch | undefined;

  /** `notShown`: how many other Neovims the fleet does not list, as it is when the batch goes. */
  constructor(
    private readonly lua: LuaWire,
    private readonly notShown: () => number,
  ) {}

  states(changes: readonly StateChange[]): void {
    if (changes.length > 0) this.open().states.push(...changes);
  }

  fleet(change: FleetChange): void {
    const b = this.open();
    for (const e of change.put) {
      b.removed.delete(e.id);
      b.put.set(e.id, e);
    }
    for (const id of change.removed) {
      b.put.delete(id);
      b.removed.add(id);
    }
  }

  /** A notice of the attention engine: it goes with the change that made it. */
  notice(n: LuaNotice): void {
    this.open().notices.push(n);
  }

  /** What the fleet spent today (the picker's header, the statusline). */
  spending(s: FleetSpending): void {
    this.open().spending = s;
  }

  /** Entries that came to need the user (:MadoJump goes to the latest). */
  wanted(ids: readonly string[]): void {
    this.open().wanted.push(...ids);
  }

  private open(): Batch {
    if (!this.batch) {
      this.batch = { states: [], put: new Map(), removed: new Set(), notices: [], wanted: [] };
      queueMicrotask(() => this.flush());
    }
    return this.batch;
  }

  private flush(): void {
    const b = this.batch;
    this.batch = undefined;
    if (!b) return;
    this.lua.send({
      type: 'changes',
      states: b.states,
      put: [...b.put.values()],
      removed: [...b.removed],
      editorsNotShown: this.notShown(),
      notices: b.notices,
      wanted: b.wanted,
      ...(b.spending ? { spending: b.spending } : {}),
    });
  }
}
