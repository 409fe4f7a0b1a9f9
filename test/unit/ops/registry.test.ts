// The operations' registry (src/ops/, one file each): what Lua calls by name is in it, and every
// operation is in `mado --help` and `:help`, as its file says.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPS, opNamed, opOfVerb, usageLines } from '../../../src/ops/index.js';
import { opRegistry } from '../../../scripts/op-registry.mjs';
import { luaFiles, ROOT } from '../../helpers/files.js';

describe('the operations', () => {
  it('are the files of src/ops/ as the build lists them, each name and verb once, its usage its verb first', () => {
    expect(readFileSync(path.join(ROOT, 'src/ops/registry.ts'), 'utf8')).toBe(opRegistry(path.join(ROOT, 'src/ops')));
    const names = OPS.map((o) => o.name);
    expect(new Set(names).size).toBe(names.length);
    const verbs = OPS.flatMap((o) => o.verbs);
    expect(new Set(verbs).size).toBe(verbs.length);
    for (const o of OPS) expect(o.usage.split(' ')[0]).toBe(o.verbs[0]);
    expect(opNamed('kill')).toBeDefined();
    expect(opNamed('nothing')).toBeUndefined();
    // dispatch is `mado --bg` (and --background) on the command line, `dispatch` to Lua and a bridge.
    expect(opOfVerb('--background')).toBe(opNamed('dispatch'));
    expect(opOfVerb('dispatch')).toBeUndefined();
  });

  it('every one Lua calls by name is one', () => {
    const called = new Set<string>();
    for (const text of luaFiles())
      for (const m of text.matchAll(/(?:require\('madohub\.ops'\)|\bops)\.(?:message|job_message|call)\('([a-z_]+)'/g))
        called.add(m[1]!);
    expect(called.size).toBeGreaterThan(0);
    for (const name of called) expect(OPS.map((o) => o.name)).toContain(name);
  });

  it('every one is in mado --help and in :help, with its usage', () => {
    const help = execFileSync(process.execPath, [path.join(ROOT, 'bin/mado'), '--help'], { encoding: 'utf8' });
    const doc = readFileSync(path.join(ROOT, 'doc/madohub.txt'), 'utf8');
    for (const o of OPS) {
      const lines = usageLines(o, 86);
      expect(help).toContain(`  ${lines.join('\n            ')}`);
      expect(help).toMatch(new RegExp(`--host NAME[\\s\\S]*Run a verb \\([^)]*${o.verbs[0]}\\b`));
      const doc72 = usageLines(o, 72);
      expect(doc).toContain(`    ${doc72.join('\n              ')}\n        ${o.summary.split(' ')[0]}`);
      expect(doc72.join(' ')).toBe(`mado ${o.usage}`);
    }
  });
});
