// The fleet: every entry, by id. Pure: told what each kind's owner knows now, it answers what
// changed (entries put, ids removed), which the Node process pushes to Lua.
import type { FleetEntry, FleetKind } from './entry.js';

export interface FleetChange {
  put: FleetEntry[];
  removed: string[];
}

const same = (a: FleetEntry, b: FleetEntry): boolean => JSON.stringify(a) === JSON.stringify(b);

export class Fleet {
  private readonly entries = new Map<string, FleetEntry>();

  /** Puts one entry; null when nothing changed. */
  set(entry: FleetEntry): FleetChange | null {
    const before = this.entries.get(entry.id);
    if (before && same(before, entry)) return null;
    this.entries.set(entry.id, entry);
    return { put: [entry], removed: [] };
  }

  remove(id: string): FleetChange | null {
    return this.entries.delete(id) ? { put: [], removed: [id] } : null;
  }

  /** Every entry of `kind` is now `entries`: the others of that kind go. */
  replaceKind(kind: FleetKind, entries: readonly FleetEntry[]): FleetChange | null {
    const put: FleetEntry[] = [];
    const removed: string[] = [];
    const keep = new Set(entries.map((e) => e.id));
    for (const [id, e] of this.entries) {
      if (e.kind === kind && !keep.has(id)) {
        this.entries.delete(id);
        removed.push(id);
      }
    }
    for (const e of entries) {
      const change = this.set(e);
      if (change) put.push(e);
    }
    return put.length || removed.length ? { put, removed } : null;
  }

  get(id: string): FleetEntry | undefined {
    return this.entries.get(id);
  }

  all(): FleetEntry[] {
    return [...this.entries.values()];
  }

  get size(): number {
    return this.entries.size;
  }
}
