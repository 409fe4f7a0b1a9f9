// What the Lua side sends the Node process, on one RPC method (`madohub`): one message per operation,
// named by its `op`, each with its guard (the fields it must have, checked before any handler runs).
// A message is a notification (no answer), a call (`ask`: answered later by an `answer` message, Lua
// does not wait), or a request (answered at once; Lua waits: :checkhealth, commands).
import type { Check, MessagesOf } from '../shared/checks.js';
import { bool, int, isObj, messageGuard, num, optional, orNull, str, strings, strMax } from '../shared/checks.js';

const buf = int(1, 2 ** 31 - 1);
const list: Check<unknown[]> = (v) => (Array.isArray(v) ? null : 'a list');
/** Buffer numbers, at most a few thousand (the windows of one tab page). */
const ints: Check<number[]> = (v) =>
  Array.isArray(v) && v.length <= 4096 && v.every((x) => Number.isInteger(x) && x > 0 && x < 2 ** 31)
    ? null
    : 'a list of buffer numbers';
/** A table: Lua's empty one comes as an empty list (msgpack cannot tell them apart). */
const table: Check<Record<string, unknown> | []> = (v) =>
  isObj(v) || (Array.isArray(v) && v.length === 0) ? null : 'a table';
/** A route end as the user named it: a name, an id, `file:PATH`, or a buffer number. */
const end: Check<string | number> = (v) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)) ? null : 'a name or a buffer number';
/** A remote host's name, where a job is one of its. */
const host = optional(str);
/** A terminal's rows or columns. */
/** Each entry's new place in its group: `{ id, order }`, an order a whole number from 1. */
const orders: Check<{ id: string; order: number }[]> = (v) =>
  Array.isArray(v) &&
  v.length <= 10_000 &&
  v.every((o) => isObj(o) && typeof o.id === 'string' && Number.isInteger(o.order) && Number(o.order) >= 1)
    ? null
    : 'a list of { id, order }';
/** A reply kept while a Node process before this one let it wait: its terms. */
const kept: Check<{ waitMenus?: boolean; busyMs?: number }> = (v) =>
  isObj(v) &&
  (v.waitMenus === undefined || typeof v.waitMenus === 'boolean') &&
  (v.busyMs === undefined || (typeof v.busyMs === 'number' && Number.isFinite(v.busyMs)))
    ? null
    : "a reply's terms ({ waitMenus, busyMs })";

/** Each operation and the fields it must have (others are let through: each handler reads its own). */
export const FROM_LUA = {
  // Notifications: what the watcher sees, what the user does.
  screen: {
    buf,
    lines: strings,
    title: optional(str),
    cursor: optional(int(-1, 100_000)),
    pid: optional(int(1, 2 ** 31 - 1)),
  },
  exit: { buf, status: int(-(2 ** 31), 2 ** 31 - 1) },
  forget: { buf },
  typing: { buf, typing: bool },
  osc: { buf, sequence: str },
  hello: { server: str },
  notify_settings: { notify: table, words: table },
  review_settings: { max_mb: int(1, 1_000_000) },
  usage_settings: { prices: optional(table), budget: optional(table) },
  saved: { path: strMax(4096) },
  hosts: { hosts: table },
  sight: { bufs: ints, focused: optional(bool), gained: optional(bool) },
  restore: { marks: list },
  route_rm: { id: str },
  route_restore: { routes: list },
  route_review: { review: int(1, Number.MAX_SAFE_INTEGER), text: orNull(str) },
  route_gone: { target: str },
  // Calls: job operations and replies, answered when done.
  background: {
    cwd: str,
    agent: optional(str),
    prompt: optional(str),
    resume: optional(str),
    name: optional(str),
    check: optional(bool),
  },
  // An operation of the registry (src/ops/) by name: its arguments are checked by its own schema.
  run: { name: strMax(64), args: table, host },
  dispatch: { line: str, cwd: str, agent: optional(str) },
  terminal_reply: { buf, text: str, typing: optional(bool), kept: optional(kept) },
  terminal_choose: { buf, choice: int(1, 9), lines: strings },
  mark: { id: str, name: optional(str), pinned: optional(bool), order: optional(num) },
  mute: { id: str, states: strings, on: bool },
  reorder: { orders },
  editor_show: { server: str, buf },
  // :MadoReview: a turn of a terminal or a job (here or on its host), with its files' texts.
  review: { id: str, turn: optional(int(1, 1_000_000_000)) },
  review_undo: { id: str, path: strMax(4096), line: int(0, 100_000_000), before: orNull(str), expected: orNull(str) },
  // Requests: answered at once.
  health: {},
  states: {},
  fleet: {},
  job: { id: str },
  session: { buf },
  explain: { buf, lines: strings, title: optional(str), cursor: optional(int(-1, 100_000)) },
  route_add: {
    source: optional(end),
    target: end,
    opts: optional(table),
    settings: optional(table),
    buf: optional(buf),
    cwd: optional(str),
  },
  route_command: { args: strings, settings: optional(table), buf: optional(buf), cwd: optional(str) },
  route_complete: { lead: str, line: optional(str), settings: optional(table) },
  route_list: {},
  paths: {},
  hosts_status: {},
  hosts_retry: { host: optional(str) },
} satisfies Record<string, Record<string, Check>>;

export type FromLuaOp = keyof typeof FROM_LUA;

/** The message of each op, typed by its checks; `ask` numbers a call. */
export type LuaMessages = { [Op in FromLuaOp]: MessagesOf<typeof FROM_LUA>[Op] & { ask?: number } };

/** A message from Lua whose fields passed its op's guard (of op `Op`, or of any). */
export type FromLua<Op extends FromLuaOp = FromLuaOp> = LuaMessages[Op];

const guard = messageGuard(FROM_LUA);
const askCheck = optional(int(1, Number.MAX_SAFE_INTEGER));

/** The message, or why it is none (an unknown op, a field that fails its check). */
export function parseFromLua(value: unknown): FromLua | string {
  const msg = guard(value);
  if (typeof msg === 'string') return msg;
  const ask = isObj(value) ? value.ask : undefined;
  const bad = askCheck(ask);
  if (bad) return `${msg.op}: field 'ask' must be ${bad}`;
  return typeof ask === 'number' ? { ...msg, ask } : msg;
}
