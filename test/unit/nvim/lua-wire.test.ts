// The wire to Lua: every message type the Node side sends has its receiver in lua/madohub/wire.lua,
// every question its answerer, and no other file of Node names a Lua module.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.join(__dirname, '../../..');

function files(dir: string, ext: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(path.join(dir, e.name), ext) : e.name.endsWith(ext) ? [path.join(dir, e.name)] : [],
  );
}

/** The `type` literals of a TypeScript union named `name` in `text`. */
function unionTypes(text: string, name: string): string[] {
  const start = text.indexOf(`export type ${name} =`);
  const body = text.slice(start, text.indexOf(';\n\n', start));
  return [...body.matchAll(/\{\s*type: '([a-z_]+)'/g)].map((m) => m[1]!);
}

/** The keys of a Lua table literal named `name` in `text`. */
function luaKeys(text: string, name: string): string[] {
  const start = text.indexOf(`local ${name} = {`);
  const body = text.slice(start, text.indexOf('\n}\n', start));
  return [...body.matchAll(/^ {2}([a-z_]+) = function/gm)].map((m) => m[1]!);
}

describe('the wire to Lua', () => {
  const ts = readFileSync(path.join(ROOT, 'src/nvim/lua-wire.ts'), 'utf8');
  const lua = readFileSync(path.join(ROOT, 'lua/madohub/wire.lua'), 'utf8');

  it('has a Lua receiver for every message and an answerer for every question, and no other', () => {
    expect(luaKeys(lua, 'receivers').sort()).toEqual(unionTypes(ts, 'ToLua').sort());
    expect(luaKeys(lua, 'answerers').sort()).toEqual(unionTypes(ts, 'LuaAsk').sort());
    expect(unionTypes(ts, 'ToLua').length).toBeGreaterThan(5);
  });

  it('is the one place of Node that names Lua', () => {
    const naming = files(path.join(ROOT, 'src'), '.ts').filter((f) =>
      /require\(["']madohub/.test(readFileSync(f, 'utf8')),
    );
    expect(naming.map((f) => path.relative(ROOT, f))).toEqual(['src/nvim/lua-wire.ts']);
  });
});
