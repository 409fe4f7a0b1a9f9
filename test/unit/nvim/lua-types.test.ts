// The LuaCATS types of what crosses the wire are checked against the TypeScript types: the fields of
// each `---@class` are those of its TypeScript type (each list below must name every field of its
// type and no other, or this file does not compile).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FleetEntry } from '../../../src/fleet/entry.js';
import type { AgentInfo, ListedRoute } from '../../../src/nvim/lua-wire.js';
import type { TerminalState } from '../../../src/state/tracker.js';

const LUA = path.join(__dirname, '../../../lua/madohub');

const FLEET_ENTRY = {
  id: 1,
  kind: 1,
  name: 1,
  named: 1,
  intent: 1,
  agent: 1,
  state: 1,
  source: 1,
  confirmed: 1,
  since: 1,
  cwd: 1,
  detail: 1,
  needs: 1,
  where: 1,
  buf: 1,
  short: 1,
  host: 1,
  pid: 1,
  peerBuf: 1,
  tty: 1,
  exit: 1,
  interrupted: 1,
  shows: 1,
  pinned: 1,
  order: 1,
  pending: 1,
  turns: 1,
  changed: 1,
  usage: 1,
  ended: 1,
  server: 1,
  attach: 1,
} satisfies Record<keyof FleetEntry, 1>;
/** A terminal's state as `madohub.state()` gives it: the buffer is the argument, not a field. */
const STATE = {
  agent: 1,
  state: 1,
  source: 1,
  confirmed: 1,
  since: 1,
  detail: 1,
  exit: 1,
  interrupted: 1,
  // Its entry's: what its agent spent (|madohub-usage|).
  usage: 1,
} satisfies Record<Exclude<keyof TerminalState, 'buf'> | 'usage', 1>;
const ROUTE = {
  id: 1,
  source: 1,
  target: 1,
  targetName: 1,
  on: 1,
  send: 1,
  template: 1,
  hops: 1,
  once: 1,
  review: 1,
  paused: 1,
  createdAt: 1,
  keeper: 1,
  options: 1,
} satisfies Record<keyof ListedRoute, 1>;
const AGENT = { id: 1, name: 1, fallback: 1 } satisfies Record<keyof AgentInfo, 1>;

/**
 * The `---@field` names of `---@class name` in a Lua file (up to the next blank or non-comment line; a
 * `---` line between them is the next field's description).
 */
function luaFields(file: string, name: string): string[] {
  const lines = readFileSync(path.join(LUA, file), 'utf8').split('\n');
  const at = lines.findIndex(
    (l) => l === `---@class ${name}` || l.startsWith(`---@class ${name}:`) || l.startsWith(`---@class ${name} `),
  );
  if (at < 0) throw new Error(`no ---@class ${name} in ${file}`);
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    if (/^---(?!@)/.test(line)) continue;
    const m = /^---@field (\w+)/.exec(line);
    if (!m) break;
    out.push(m[1]!);
  }
  return out;
}

describe('the LuaCATS types of the wire', () => {
  it.each([
    ['fleet.lua', 'madohub.FleetEntry', FLEET_ENTRY],
    ['state.lua', 'madohub.State', STATE],
    ['routes/init.lua', 'madohub.Route', ROUTE],
    ['state.lua', 'madohub.AgentInfo', AGENT],
  ] as const)('%s %s has the fields of its TypeScript type', (file, name, fields) => {
    expect(luaFields(file, name).sort()).toEqual(Object.keys(fields).sort());
  });
});
