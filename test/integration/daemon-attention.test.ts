// With Neovim closed, the daemon tells a background job's news on the desktop; while a Neovim runs
// MadoHub and sees the job, that Neovim tells it and the daemon keeps quiet: one event, told once.
// A recording notify-send on PATH (test/fixtures/notify-bin) logs each run with its parent's pid.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shortOf, until, useJobsHarness } from './jobs-harness.js';
import { ROOT, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { holds } from '../helpers/wait.js';

const NOTIFY_BIN = path.join(ROOT, 'test/fixtures/notify-bin');

interface Run {
  argv: string[];
  ppid: number;
}

describe.each(testNeovims())('Neovim $label: a background job’s news outside Neovim', ({ path: exe }) => {
  const h = useJobsHarness();
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('is the daemon’s with no Neovim open, and the Neovim’s while one runs (the daemon then keeps quiet)', async () => {
    const log = path.join(h.base, 'notify.jsonl');
    const notifyEnv = { PATH: `${NOTIFY_BIN}:${process.env.PATH ?? ''}`, MADOHUB_FAKE_NOTIFY_LOG: log };
    const runs = (): Run[] =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Run)
        : [];
    const titleOf = (r: Run): string => r.argv[r.argv.indexOf('--') + 1] ?? '';
    const bodyOf = (r: Run): string => r.argv[r.argv.indexOf('--') + 2] ?? '';

    // No Neovim: the job works, then asks; the daemon tells it once, with the way to it.
    const first = shortOf((await h.mado(['--bg', '--agent', 'asker', '-n', 'asks once'], undefined, notifyEnv)).stdout);
    expect(
      (
        await until(
          () => Promise.resolve(runs()),
          (r) => r.length >= 1,
          8000,
        )
      ).length,
    ).toBe(1);
    const told = runs()[0]!;
    expect(titleOf(told)).toBe('asks once: Claude Code Waiting');
    expect(bodyOf(told)).toBe(`Do you want to proceed? — rm -rf build\nmado attach ${first}`);
    const daemonPid = told.ppid;
    expect(readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8')).toContain(`pid ${daemonPid}`);
    expect(await holds(() => runs().length === 1, 1500)).toBe(true);

    // A Neovim runs MadoHub: the next job's question is told by it, and by it alone.
    s = await startNeovim(exe, { ...h.neovimEnv(), ...notifyEnv });
    // MadoHub's Node side runs (a terminal, the picker or a job started it; here, asked for).
    await s.lua(`require('madohub').setup({}) require('madohub.node').ensure()`);
    expect(await s.waitFor(`#require('madohub').agents() >= 1`, 8000)).toBe(true);
    const nodePid = (await s.lua<{ pid: number }>('return require("madohub.node").request("health")')).pid;
    const second = shortOf(
      (await h.mado(['--bg', '--agent', 'asker', '-n', 'asks later'], undefined, notifyEnv)).stdout,
    );
    expect(
      (
        await until(
          () => Promise.resolve(runs()),
          (r) => r.length >= 2,
          8000,
        )
      ).length,
    ).toBe(2);
    expect(await holds(() => runs().length === 2, 1500)).toBe(true);
    expect(titleOf(runs()[1]!)).toBe('asks later: Claude Code Waiting');
    expect(bodyOf(runs()[1]!)).toBe(`Do you want to proceed? — rm -rf build\nmado attach ${second}`);
    expect(runs()[1]!.ppid).toBe(nodePid);
    expect(await s.lua<string>(`return vim.fn.execute('messages')`)).toMatch(
      /Claude Code is Waiting in job [0-9a-f]{8} \(asks later\)/,
    );
  });
});
