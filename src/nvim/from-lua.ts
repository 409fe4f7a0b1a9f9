// What the Lua side sends the Node process, on one RPC method (`madohub`): one message per operation,
// named by its `op`, each with its guard (the fields it must have, checked before any handler runs).
// A message is a notification (no answer), a call (`ask`: answered later by an `answer` message, Lua
// does not wait), or a request (answered at once; Lua waits: :checkhealth, commands).
import type { Check } from '../shared/checks.js';
import { bool, int, isObj, optional, orNull, requestGuard, str, strings } from '../shared/checks.js';

const buf = int(1, 2 ** 31 - 1);
const list: Check = (v) => (Array.isArray(v) ? null : 'a list');
/** Buffer numbers, at most a few thousand (the windows of one tab page). */
const ints: Check = (v) =>
  Array.isArray(v) && v.length <= 4096 && v.every((x) => Number.isInteger(x) && x > 0 && x < 2 ** 31)
    ? null
    : 'a list of buffer numbers';
/** A table: Lua's empty one comes as an empty list (msgpack cannot tell them apart). */
const table: Check = (v) => (isObj(v) || (Array.isArray(v) && v.length === 0) ? null : 'a table');
/** A route end as the user named it: a name, an id, `file:PATH`, or a buffer number. */
const end: Check = (v) =>
  typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v)) ? null : 'a name or a buffer number';

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
  hosts: { hosts: table },
  sight: { bufs: ints, focused: optional(bool), gained: optional(bool) },
  restore: { marks: list },
  route_rm: { id: str },
  route_restore: { routes: list },
  route_review: { review: int(1, Number.MAX_SAFE_INTEGER), text: orNull(str) },
  route_gone: { target: str },
  // Calls: job operations and replies, answered when done.
  background: { cwd: str },
  stop: { id: str },
  kill: { id: str },
  respawn: { id: str },
  remove: { id: str },
  send: { id: str, text: str },
  choose: { id: str, choice: int(1, 9) },
  screen_of: { id: str },
  dispatch: { line: str, cwd: str },
  logs: { id: str },
  terminal_reply: { buf, text: str },
  terminal_choose: { buf, choice: int(1, 9), lines: strings },
  mark: { id: str },
  mute: { id: str, states: strings, on: bool },
  reorder: { orders: list },
  editor_show: { server: str, buf },
  // Requests: answered at once.
  health: {},
  states: {},
  fleet: {},
  job: { id: str },
  session: { buf },
  explain: { buf, lines: strings, title: optional(str), cursor: optional(int(-1, 100_000)) },
  route_add: { source: optional(end), target: end, opts: optional(table), settings: optional(table) },
  route_command: { args: strings, settings: optional(table) },
  route_complete: { lead: str, line: optional(str), settings: optional(table) },
  route_list: {},
  paths: {},
  hosts_status: {},
  hosts_retry: { host: optional(str) },
} satisfies Record<string, Record<string, Check>>;

export type FromLuaOp = keyof typeof FROM_LUA;

/** A message from Lua whose fields passed its op's guard; `ask` numbers a call. */
export type FromLua = { op: FromLuaOp; ask?: number } & Record<string, unknown>;

const guard = requestGuard<FromLua>(FROM_LUA as Record<FromLuaOp, Record<string, Check>>);
const askCheck = optional(int(1, Number.MAX_SAFE_INTEGER));

/** The message, or why it is none (an unknown op, a field that fails its check). */
export function parseFromLua(value: unknown): FromLua | string {
  const msg = guard(value);
  if (typeof msg === 'string') return msg;
  const bad = askCheck(msg.ask);
  return bad ? `${msg.op}: field 'ask' must be ${bad}` : msg;
}
