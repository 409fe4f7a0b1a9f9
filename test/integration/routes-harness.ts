// A Neovim (started by the test) with two replier agents in terminals, named writer and reviewer:
// what the tests of :MadoRoute share. `bin/replier`: `work` makes one work 1.5 s (or
// MADOHUB_FIXTURE_WORK_MS) and end its turn with `● Turn N is done.` and a completion line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect } from 'vitest';
import { FIX } from './jobs-harness.js';
import { startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

const REPLIER = path.join(FIX, 'bin/replier');

/** Lua: whether terminal `buf`'s lines hold `text`. */
export const has = (buf: number, text: string): string =>
  `table.concat(vim.api.nvim_buf_get_lines(${buf}, 0, -1, false), '\\n'):find(${JSON.stringify(text)}, 1, true) ~= nil`;

export interface RoutesNeovim {
  /** The Neovim of the test under way (after `setup`). */
  readonly s: Session;
  /** A Neovim with two replier agents (each with the environment given), named writer and reviewer; their buffers. */
  setup(
    cwd?: string,
    env?: { a?: Record<string, string>; b?: Record<string, string> },
  ): Promise<{ a: number; b: number }>;
  /** Writes `text` into terminal `buf` as typed. */
  type(buf: number, text: string): Promise<unknown>;
}

/** Each test's Neovim, closed after it. */
export function useRoutesNeovim(exe: string): RoutesNeovim {
  let session: Session | undefined;
  afterEach(async () => {
    await session?.close();
    session = undefined;
  });
  const live = (): Session => {
    if (!session) throw new Error('no Neovim: call setup() first');
    return session;
  };
  return {
    get s() {
      return live();
    },
    async setup(cwd, env = {}) {
      const base = mkdtempSync(path.join(tmpdir(), 'madohub-routes-'));
      const s = await startNeovim(exe, {
        MADOHUB_JOBS_DIR: path.join(base, 'jobs'),
        MADOHUB_RUNTIME_DIR: path.join(base, 'run'),
        CLAUDE_CONFIG_DIR: path.join(base, 'claude'),
      });
      session = s;
      // A template whose payload ends with `work`: the replier that gets it works, and ends a turn.
      await s.lua(`require('madohub').setup({ routes = { templates = { loop = 'Reply with: work\\nwork' } } })`);
      const open = (dir: string | undefined, vars: Record<string, string> = {}): Promise<number> =>
        s.lua<number>(
          `vim.cmd('new')
           local opts = { cwd = select(1, ...), env = select(2, ...) }
           if vim.fn.has('nvim-0.11') == 1 then opts.term = true; vim.fn.jobstart({ 'node', '${REPLIER}' }, opts) else vim.fn.termopen({ 'node', '${REPLIER}' }, opts) end
           return vim.api.nvim_get_current_buf()`,
          [dir ?? process.cwd(), { MADOHUB_FIXTURE_UNUSED: '1', ...vars }],
        );
      const a = await open(cwd, env.a);
      const b = await open(undefined, env.b);
      expect(await s.waitFor(`#require('madohub').agents({ kind = 'terminal', state = 'idle' }) == 2`, 10000)).toBe(
        true,
      );
      for (const [buf, name] of [
        [a, 'writer'],
        [b, 'reviewer'],
      ] as const) {
        await s.lua(`require('madohub.node').call('mark', { id = 'term:${buf}', name = '${name}' }, function() end)`);
      }
      expect(
        await s.waitFor(
          `(require('madohub.fleet').find('term:${b}') or {}).name == 'reviewer' and (require('madohub.fleet').find('term:${a}') or {}).name == 'writer'`,
          5000,
        ),
      ).toBe(true);
      await s.lua(`_G.fired, _G.held = {}, {}
        vim.api.nvim_create_autocmd('User', { pattern = 'MadoRouteFired', callback = function(ev) table.insert(_G.fired, ev.data) end })
        vim.api.nvim_create_autocmd('User', { pattern = 'MadoRouteHeld', callback = function(ev) table.insert(_G.held, ev.data.reason) end })`);
      return { a, b };
    },
    type: (buf, text) => live().lua(`vim.api.nvim_chan_send(vim.bo[${buf}].channel, ...)`, [text]),
  };
}

const NEOVIMS = testNeovims();
/**
 * How many turns a loop of turns runs in Neovim `label`: 20 in the newest, 3 in the other (the turn
 * model is the Node side's; the Neovim's part, a terminal's screen and its writes, is the same each turn).
 */
export const loopTurns = (label: string): number => (label === NEOVIMS[NEOVIMS.length - 1]!.label ? 20 : 3);
