// An agent is one file: a throwaway module dropped into a copy of src/agents/ is, after one build,
// picked up by every consumer — the registry, the CLI's help, `mado detect` (by its screen and when
// named), a job of its template (the daemon's detectors read its screen), the doc's list, and in a
// real Neovim its terminal's winbar (its process names it), :checkhealth and the picker's filter.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killDaemonOf, killJobsOf, until } from './jobs-harness.js';
import { openTerminal, startNeovim, testNeovims } from './neovim.js';
import { builtCopy, madoOf } from '../helpers/files.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';

const ZEPHYR = `// Zephyr, an agent that does not exist: the throwaway module of test/integration/new-agent.test.ts.
import { SHARED_RULES } from '../detect/common.js';
import type { AgentModule } from './types.js';

export const zephyr: AgentModule = {
  id: 'zephyr',
  displayName: 'Zephyr',
  bracketedPaste: true,
  screen: {
    id: 'zephyr',
    markers: [/^ZEPHYR v\\d/],
    titleMarkers: [],
    lines: [
      ...SHARED_RULES,
      { name: 'gust', state: 'working', test: /^~ Gusting… \\(ctrl\\+g to calm\\)/ },
      { name: 'blow', state: 'waiting', test: /^~ Let it blow\\? \\[y\\/n\\]/ },
      { name: 'prompt', state: 'idle', test: /^zephyr> $/, hint: true },
    ],
    titles: [],
  },
  process: { names: ['zephyr'], script: /(?:^|\\/)zephyr$/ },
  template: { description: 'Zephyr', command: ['zephyr'], prompt: 'type' },
  env: { names: [], prefixes: ['ZEPHYR_'] },
};
`;

/** The throwaway agent's program: its banner (not with --no-banner), then it works until it is told to stop. */
const PROGRAM = `#!/usr/bin/env node
if (!process.argv.includes('--no-banner')) process.stdout.write('ZEPHYR v1.0\\r\\n\\r\\n');
process.stdout.write('~ Gusting… (ctrl+g to calm)\\r\\n');
process.stdin.setRawMode?.(true);
process.stdin.on('data', (d) => { if (d.includes(3) || d.includes(113)) process.exit(0); });
setInterval(() => {}, 1000);
`;

let copy: string;
let bin: string;
let base: string;

const mado = (args: string[], env: NodeJS.ProcessEnv, input = ''): ReturnType<typeof madoOf> =>
  madoOf(copy, args, env, input);

beforeAll(() => {
  base = mkdtempSync(path.join(tmpdir(), 'madohub-new-agent-'));
  copy = builtCopy(base, { 'src/agents/zephyr.ts': ZEPHYR });
  bin = path.join(base, 'bin');
  mkdirSync(bin);
  writeFileSync(path.join(bin, 'zephyr'), PROGRAM);
  chmodSync(path.join(bin, 'zephyr'), 0o755);
}, 120_000);

afterAll(async () => {
  await killJobsOf(path.join(base, 'jobs'));
  killDaemonOf(base);
  rmSync(base, { recursive: true, force: true });
});

describe('a new agent module', () => {
  it('is in the registry, the help, the doc list and mado detect after one build, with no other file touched', async () => {
    expect(readFileSync(path.join(copy, 'src/agents/registry.ts'), 'utf8')).toMatch(
      /import \{ zephyr \} from '\.\/zephyr\.js';[\s\S]*AGENT_MODULES[^;]*zephyr/,
    );
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
    expect((await mado(['--help'], env)).stdout).toMatch(/Agents \(--agent\):[\s\S]*shell,\s+zephyr,/);
    expect(readFileSync(path.join(copy, 'doc/madohub.txt'), 'utf8')).toMatch(/^ {4}`zephyr` +Zephyr +`zephyr`$/m);
    // By its screen alone, and read as its screen when named.
    const bySceen = JSON.parse(
      (await mado(['detect', '-'], env, 'ZEPHYR v1.0\n\n~ Gusting… (ctrl+g to calm)\n')).stdout,
    ) as Record<string, string>;
    expect(bySceen).toMatchObject({ agent: 'zephyr', state: 'working' });
    const named = JSON.parse(
      (await mado(['detect', '--agent', 'zephyr', '-'], env, '~ Let it blow? [y/n]\n')).stdout,
    ) as Record<string, string>;
    expect(named).toMatchObject({ agent: 'zephyr', state: 'waiting' });
  });

  it('runs as a job of its own template, whose screen its host reads as Zephyr Working', async () => {
    const env = {
      ...process.env,
      PATH: `${bin}:${process.env.PATH}`,
      MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
      MADOHUB_TEMPLATES: path.join(base, 'no-templates.json'),
      MADOHUB_DISABLE_AGENT_VIEW: '',
    };
    const r = await mado(['--bg', '--agent', 'zephyr', 'blow'], env);
    expect(r.stderr).toBe('');
    const jobs = await until(
      async () =>
        JSON.parse((await mado(['agents', '--json'], env)).stdout) as {
          agent: string;
          tempo: string;
          template: { name: string };
        }[],
      (j) => j[0]?.agent === 'zephyr' && j[0]?.tempo === 'active',
      15000,
    );
    expect(jobs[0]).toMatchObject({ agent: 'zephyr', tempo: 'active', template: { name: 'zephyr' } });
  }, 30000);

  describe.each(testNeovims())('in Neovim $label', (nv) => {
    let s: Session;
    beforeAll(async () => {
      s = await startNeovim(
        nv.path,
        {
          PATH: `${bin}:${process.env.PATH}`,
          MADOHUB_JOBS_DIR: path.join(base, 'nvim-jobs'),
          MADOHUB_RUNTIME_DIR: path.join(base, 'nvim-run'),
        },
        copy,
      );
      await s.lua("require('madohub').setup({})");
    });
    afterAll(async () => {
      await s.close();
    });

    it('names its terminal by its process in the winbar, lists it in :checkhealth, and the filter a:zephyr keeps it', async () => {
      const screen = await Screen.attach(s.nvim, 160, 48);
      try {
        // No banner: only its process says which agent it is.
        const buf = await openTerminal(s, ['zephyr', '--no-banner']);
        expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).agent == 'zephyr'`, 10000)).toBe(true);
        await screen.waitForText(/Zephyr Working/);
        await s.lua("vim.cmd('checkhealth madohub')");
        const report = (await s.lua<string[]>('return vim.api.nvim_buf_get_lines(0, 0, -1, false)')).join('\n');
        expect(report).toMatch(/Zephyr \(zephyr\): `zephyr` is on PATH/);
        await s.lua("vim.cmd('bwipeout!')");
        // The picker, typed as a person types: `/`, the filter, Enter.
        await s.lua("vim.cmd('MadoAgents')");
        await screen.waitForText(/Zephyr/);
        await s.lua(
          "vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('/a:zephyr<CR>', true, false, true), 'mx', false)",
        );
        await screen.waitForText(/1 shown · \/a:zephyr/);
        await s.lua(
          "vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<Esc>/a:codex<CR>', true, false, true), 'mx', false)",
        );
        await screen.waitForText(/nothing matches “a:codex”/);
      } finally {
        await screen.detach();
      }
    }, 40000);
  });
});
