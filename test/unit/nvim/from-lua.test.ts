// The Lua side's messages: each op has its guard; a message that is none is refused with why, and
// the Lua side sends no op the Node side does not know.
import { describe, expect, it } from 'vitest';
import { FROM_LUA, parseFromLua } from '../../../src/nvim/from-lua.js';
import { luaFiles } from '../../helpers/files.js';

describe('messages from Lua', () => {
  it('pass their op’s guard, or are refused with why', () => {
    expect(parseFromLua({ op: 'screen', buf: 3, lines: ['❯ '], title: 'x' })).toMatchObject({ op: 'screen', buf: 3 });
    expect(parseFromLua({ op: 'run', ask: 7, name: 'stop', args: { id: 'a1b2c3d4', wait: false } })).toMatchObject({
      op: 'run',
      ask: 7,
    });
    expect(parseFromLua({ op: 'run', name: 'stop', args: 'x' })).toBe("run: field 'args' must be a table");
    expect(parseFromLua({ op: 'health' })).toEqual({ op: 'health' });
    expect(parseFromLua('screen')).toBe('a request is a JSON object');
    expect(parseFromLua({ op: 'call', method: 'stop' })).toBe('unknown op "call"');
    expect(parseFromLua({ op: '__proto__' })).toBe('unknown op "__proto__"');
    expect(parseFromLua({ op: 'screen', buf: 0, lines: [] })).toBe(
      "screen: field 'buf' must be a whole number from 1 to 2147483647",
    );
    expect(parseFromLua({ op: 'screen', buf: 2, lines: ['a', 3] })).toBe(
      "screen: field 'lines' must be a list of strings",
    );
    expect(parseFromLua({ op: 'exit', buf: 2 })).toBe("exit: field 'status' is missing");
    expect(parseFromLua({ op: 'terminal_choose', buf: 2, choice: 10, lines: [] })).toBe(
      "terminal_choose: field 'choice' must be a whole number from 1 to 9",
    );
    expect(parseFromLua({ op: 'run', name: 'respawn', args: { id: 'x' }, ask: 'soon' })).toBe(
      "run: field 'ask' must be a whole number from 1 to 9007199254740991",
    );
    expect(parseFromLua({ op: 'route_add', target: { evil: true } })).toBe(
      "route_add: field 'target' must be a name or a buffer number",
    );
    // Lua's empty table comes as an empty list.
    expect(parseFromLua({ op: 'route_add', target: 'x', opts: [] })).toMatchObject({ op: 'route_add', opts: [] });
    expect(parseFromLua({ op: 'route_add', target: 'x', opts: [1] })).toBe("route_add: field 'opts' must be a table");
  });

  it('are only ops the Node side knows: every node.notify/call/request of the Lua side names one', () => {
    const ops = new Set<string>();
    for (const text of luaFiles()) {
      for (const m of text.matchAll(/(?:node|require\('madohub\.node'\))\.(?:notify|call|request)\('([a-z_]+)'/g))
        ops.add(m[1]!);
      // The jobs module's and the picker's helpers: call(what, op, …).
      for (const m of text.matchAll(/\bcall\('[^']*', '([a-z_]+)'/g)) ops.add(m[1]!);
    }
    expect(ops.size).toBeGreaterThan(15);
    for (const op of ops) expect(Object.keys(FROM_LUA), op).toContain(op);
  });
});
