// An operation is one file (issue 28): a throwaway `src/ops/zap.ts` dropped into a copy is, after one
// build and with no other file changed, in the registry, `mado --help` and `:help`, runs as `mado zap`,
// runs on a host through its bridge (`mado --host box zap` as it runs here; by name, its arguments and
// result as data, as the Lua side calls it), and is called by name from Lua in a real Neovim.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killDaemonOf } from './jobs-harness.js';
import { startNeovim, testNeovims } from './neovim.js';
import { builtCopy, madoOf } from '../helpers/files.js';
import { Link } from '../../src/jobs/remote/link.js';
import type { HostConfig } from '../../src/jobs/remote/hosts.js';
import type { Session } from './neovim.js';

const ZAP = `// Zap, an operation that does not exist: the throwaway file of test/integration/new-op.test.ts.
import { parseArgs } from '../shared/args.js';
import { isObj, strMax } from '../shared/checks.js';
import { defineOp } from './op.js';

export const zap = defineOp({
  name: 'zap',
  usage: 'zap WORD',
  summary: 'Say WORD back in capitals, with the mado verb of the process that ran it.',
  args: { word: strMax(40) },
  result: (v): string | null =>
    isObj(v) && typeof v.word === 'string' && typeof v.by === 'string' ? null : '{ word, by }',
  fromArgv: (argv) => ({ word: parseArgs(argv, [], ['WORD']).positional[0] ?? '' }),
  run: async (_ctx, { word }) => ({ word: word.toUpperCase(), by: process.argv[2] ?? '' }),
  show: (zapped) => \`zapped \${zapped.word} (mado \${zapped.by})\\n\`,
});
`;

let base: string;
let copy: string;
let env: NodeJS.ProcessEnv;

const mado = (args: string[]): ReturnType<typeof madoOf> => madoOf(copy, args, env);

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'madohub-new-op-'));
  copy = builtCopy(base, { 'src/ops/zap.ts': ZAP });
  // Host `box`: a local shell with folders of its own, running the copy's `mado bridge`.
  const there = (k: string): string => `${k}=${path.join(base, 'box', k.toLowerCase())}`;
  const config = path.join(base, 'config');
  mkdirSync(path.join(config, 'madohub'), { recursive: true });
  writeFileSync(
    path.join(config, 'madohub', 'hosts.json'),
    JSON.stringify({
      box: {
        command: ['env', there('MADOHUB_JOBS_DIR'), there('MADOHUB_RUNTIME_DIR'), 'sh'],
        mado: `${process.execPath} ${path.join(copy, 'bin/mado')}`,
        connect_ms: 20000,
      },
    }),
  );
  env = {
    ...process.env,
    XDG_CONFIG_HOME: config,
    MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
    MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
    MADOHUB_DISABLE_AGENT_VIEW: '',
  };
}, 120_000);

afterAll(() => {
  killDaemonOf(base);
  rmSync(base, { recursive: true, force: true });
});

describe('a new operation', () => {
  it('is in the registry, mado --help and :help after one build', async () => {
    expect(readFileSync(path.join(copy, 'src/ops/registry.ts'), 'utf8')).toMatch(
      /import \{ zap \} from '\.\/zap\.js';[\s\S]*OPS[^;]*\bzap\b/,
    );
    const help = (await mado(['--help'])).stdout;
    expect(help).toMatch(/^ {2}mado zap WORD {13}Say WORD back in capitals/m);
    expect(help).toMatch(/Run a verb \([^)]*\bzap\)/);
    expect(readFileSync(path.join(copy, 'doc/madohub.txt'), 'utf8')).toContain(
      '    mado zap WORD\n        Say WORD back in capitals',
    );
  });

  it('runs as mado zap, its arguments read as its file says', async () => {
    expect(await mado(['zap', 'hello'])).toEqual({ code: 0, stdout: 'zapped HELLO (mado zap)\n', stderr: '' });
    const extra = await mado(['zap', 'a', 'b']);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^mado zap: unexpected argument 'b'/);
  });

  it('runs on a host through its bridge: mado --host box zap', async () => {
    // Run there as it runs here (`mado zap` there, through the daemon's link and the host's bridge).
    expect(await mado(['--host', 'box', 'zap', 'over'])).toEqual({
      code: 0,
      stdout: 'zapped OVER (mado zap)\n',
      stderr: '',
    });
  }, 30000);

  it("is run by a host's bridge by name, its result sent back as data (what the Lua side's calls of it use)", async () => {
    const hosts = JSON.parse(readFileSync(path.join(env.XDG_CONFIG_HOME!, 'madohub', 'hosts.json'), 'utf8')) as {
      box: HostConfig;
    };
    const link = await Link.open('box', hosts.box, { env, connectMs: 20000 });
    try {
      expect(await link.run('zap', { word: 'data' }, 10000)).toEqual({ word: 'DATA', by: 'bridge' });
      await expect(link.run('zap', { word: 7 }, 10000)).rejects.toThrow(
        "box: field 'word' must be a string of at most 40 characters",
      );
    } finally {
      link.close();
    }
  }, 30000);

  describe.each(testNeovims())('in Neovim $label', (nv) => {
    let s: Session;
    beforeAll(async () => {
      s = await startNeovim(
        nv.path,
        { MADOHUB_JOBS_DIR: path.join(base, 'nvim-jobs'), MADOHUB_RUNTIME_DIR: path.join(base, 'nvim-run') },
        copy,
      );
      await s.lua("require('madohub').setup({})");
    });
    afterAll(async () => {
      await s.close();
    });

    it('is called by name from Lua, its arguments checked by its schema', async () => {
      await s.lua(`
        require('madohub.ops').call('zap', { word = 'lua' }, function(r, err) vim.g.zapped = { r or vim.NIL, err or vim.NIL } end)
        require('madohub.ops').call('zap', { word = 7 }, function(r, err) vim.g.refused = { r or vim.NIL, err or vim.NIL } end)
      `);
      expect(await s.waitFor('vim.g.zapped ~= nil and vim.g.refused ~= nil', 10000)).toBe(true);
      expect(await s.lua('return vim.g.zapped')).toEqual([{ word: 'LUA', by: expect.any(String) }, null]);
      expect(await s.lua('return vim.g.refused')).toEqual([
        null,
        "field 'word' must be a string of at most 40 characters",
      ]);
    });
  });
});
