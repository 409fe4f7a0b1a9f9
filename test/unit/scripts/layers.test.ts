// The layer check of `npm test` (.dependency-cruiser.cjs) fails on what it is there to stop: an
// upward import, a type-only one too, a cycle, a file outside every layer, a Node module in the
// detect engine. Each is planted in a copy of a small tree and the checker is run on it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.join(__dirname, '../../..');
const depcruise = path.join(root, 'node_modules/.bin/depcruise');
const work = mkdtempSync(path.join(tmpdir(), 'mh-layers-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let n = 0;
/** A tree of `files` (path → text) with the repository's layer rules. */
function plant(files: Record<string, string>): string {
  const dir = path.join(work, String(n++));
  mkdirSync(dir);
  copyFileSync(path.join(root, '.dependency-cruiser.cjs'), path.join(dir, '.dependency-cruiser.cjs'));
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
  );
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

/** Runs the layer check on a tree of `files`; the rules it broke. */
function check(files: Record<string, string>): string[] {
  const dir = plant(files);
  const json = execFileSync(depcruise, ['--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'src'], {
    cwd: dir,
    encoding: 'utf8',
    stdio: 'pipe',
  });
  const out = JSON.parse(json) as { summary: { violations: { rule: { name: string } }[] } };
  return [...new Set(out.summary.violations.map((v) => v.rule.name))].sort();
}

const base = {
  'src/shared/text.ts': 'export const clip = (s: string): string => s;\n',
  'src/agents/index.ts': "import { clip } from '../shared/text.js';\nexport const name = clip('a');\n",
  'src/fleet/hub.ts': "import { name } from '../agents/index.js';\nexport const hub = name;\n",
};

describe('the layer check', () => {
  it('passes a tree that keeps the layers; a violation fails the command as `npm test` runs it', () => {
    expect(check(base)).toEqual([]);
    const dir = plant({
      ...base,
      'src/shared/bad.ts': "import { hub } from '../fleet/hub.js';\nexport const b = hub;\n",
    });
    let failed: { status: number; stdout: string } | undefined;
    try {
      execFileSync(depcruise, ['--config', '.dependency-cruiser.cjs', 'src'], {
        cwd: dir,
        stdio: 'pipe',
        encoding: 'utf8',
      });
    } catch (err) {
      failed = err as { status: number; stdout: string };
    }
    expect(failed?.status).toBe(1);
    expect(failed?.stdout).toContain('error no-upward-from-shared: src/shared/bad.ts → src/fleet/hub.ts');
  });

  it('fails an upward import, a type-only one as well', () => {
    expect(
      check({ ...base, 'src/shared/bad.ts': "import { hub } from '../fleet/hub.js';\nexport const b = hub;\n" }),
    ).toEqual(['no-upward-from-shared']);
    expect(
      check({
        ...base,
        'src/agents/bad.ts': "import type { Hub } from '../fleet/types.js';\nexport type B = Hub;\n",
        'src/fleet/types.ts': 'export type Hub = string;\n',
      }),
    ).toEqual(['no-upward-from-agents']);
  });

  it('fails jobs that use routes, and one side that uses another', () => {
    const files = {
      ...base,
      'src/routes/engine.ts': 'export const e = 1;\n',
      'src/jobs/store.ts': "import { e } from '../routes/engine.js';\nexport const s = e;\n",
    };
    expect(check(files)).toEqual(['no-jobs-to-routes']);
    expect(
      check({
        ...base,
        'src/cli/main.ts': 'export const m = 1;\n',
        'src/nvim/server.ts': "import { m } from '../cli/main.js';\nexport const s = m;\n",
      }),
    ).toEqual(['no-nvim-to-cli-daemon']);
  });

  it('fails a cycle, a file outside the layers, and a Node module in the detect engine', () => {
    expect(
      check({
        ...base,
        'src/agents/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
        'src/agents/b.ts': "import type { a } from './a.js';\nexport const b = 1 as typeof a;\n",
      }),
    ).toEqual(['no-cycle']);
    expect(
      check({ ...base, 'src/misc/x.ts': "import { clip } from '../shared/text.js';\nexport const x = clip('');\n" }),
    ).toEqual(['no-outside-layers']);
    expect(
      check({
        ...base,
        'src/detect/engine.ts': "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n",
      }),
    ).toEqual(['pure-detect']);
  });
});
