// What the user sets on an entry (its name, pin and place in its group), as it is taken: from the
// picker, and back from Lua for this Neovim's terminals after a new Node process.
import { isObj } from '../shared/checks.js';
import { termBuf } from '../shared/fleet-id.js';

/** What the user sets on an entry: its name, pin and place in its group. */
export interface EntryMarks {
  name?: string;
  pinned?: boolean;
  order?: number;
}

/** The longest name a user gives an entry. */
export const MAX_NAME = 120;
/** The most terminals whose marks a new Node process takes back from Lua. */
export const MAX_KEPT_MARKS = 1000;

/** A name as a user gives it: no control characters, trimmed, bounded. */
export const cleanName = (name: string): string =>
  name
    .replace(/[\x00-\x1f\x7f]/g, ' ')
    .trim()
    .slice(0, MAX_NAME);

/** A terminal's marks as Lua kept them, checked field by field (undefined: none). */
export function keptMarks(v: unknown): { id: string; marks: EntryMarks } | undefined {
  if (!isObj(v)) return undefined;
  const m = v;
  if (typeof m.id !== 'string' || termBuf(m.id) === undefined) return undefined;
  const cleaned = typeof m.name === 'string' ? cleanName(m.name) : '';
  const name = cleaned !== '' ? cleaned : undefined;
  const marks: EntryMarks = {
    ...(name !== undefined ? { name } : {}),
    ...(typeof m.pinned === 'boolean' ? { pinned: m.pinned } : {}),
    ...(typeof m.order === 'number' && Number.isFinite(m.order) ? { order: m.order } : {}),
  };
  return Object.keys(marks).length > 0 ? { id: m.id, marks } : undefined;
}
