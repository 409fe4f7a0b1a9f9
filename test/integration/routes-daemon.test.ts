// Routes between background jobs, kept by the daemon: they work with no Neovim at all (`mado route`).
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { blankJob, createJob } from '../../src/jobs/store.js';
import { openTerminal, startNeovim, testNeovims } from './neovim.js';
import { elapse } from '../helpers/wait.js';

describe('mado route', () => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });

  it('a job → job route delivers a finished turn with no Neovim; ls, rm, and the refusals', async () => {
    const a = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'writer'])).stdout);
    const b = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    await until(h.jobs, (j) => j.length === 2 && j.every((x) => x.alive === true));
    const added = await h.mado(['route', 'add', 'writer', 'reviewer']);
    expect(added).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(new RegExp(`^route \\w+  job:${a} → job:${b}  on=done send=last hops=3\\n$`)),
    });
    const id = /^route (\w+)/.exec(added.stdout)![1]!;
    // Kept in the jobs folder, 0600, so that a daemon that leaves and comes back has it.
    const file = path.join(h.base, 'jobs', 'routes.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      version: 1,
      routes: [{ id, source: `job:${a}`, target: `job:${b}` }],
    });

    expect(await h.mado(['route', 'add', b, a])).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/this route closes a cycle \(.*\); give --hops N to allow it/),
    });
    expect(await h.mado(['route', 'add', a, a])).toMatchObject({
      code: 1,
      stderr: 'mado route: a route to itself is none\n',
    });
    expect(await h.mado(['route', 'add', '--send', 'all', a, b])).toMatchObject({
      code: 1,
      stderr: 'mado route: send=all is none of last, diff, screen\n',
    });
    expect(await h.mado(['route', 'add', 'nope', b])).toMatchObject({ code: 1, stderr: "mado route: no job 'nope'\n" });
    expect(await h.mado(['route', 'frobnicate'])).toMatchObject({ code: 2 });

    // The writer's turn ends: the reviewer gets the provenance line and the answer.
    expect(await h.mado(['send', a, 'work'])).toMatchObject({ code: 0 });
    // Waited for until the reviewer has taken it (its answer): the payload pasted into its input line
    // holds the same words for the 50 ms before its Enter.
    const logs = await until(
      async () => (await h.mado(['logs', b])).stdout,
      (t) => t.includes('You said: [mado route'),
      12000,
    );
    expect(logs).toContain('You said: [mado route writer → reviewer · hop 1/3]\nTurn 1 is done.');

    expect(JSON.parse((await h.mado(['route', 'ls', '--json'])).stdout)).toMatchObject([{ id }]);
    expect(await h.mado(['route', 'rm', id])).toMatchObject({ code: 0, stdout: `removed route ${id}\n` });
    expect(await h.mado(['route', 'ls'])).toMatchObject({ code: 0, stdout: 'no routes\n' });
    expect(await h.mado(['route', 'rm', id])).toMatchObject({ code: 1, stderr: `mado route: no route '${id}'\n` });
    // What the daemon says back of a hostile id is printed with its control characters made harmless.
    expect(await h.mado(['route', 'rm', 'ab\x1b]0;x\x07'])).toMatchObject({
      code: 1,
      stderr: "mado route: no route 'ab?]0;x?'\n",
    });
  }, 60000);
});

describe('a job a route reached, working again on its own', () => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });

  it('its turn of the route is not told (the route takes it on); its next turn, no one typed, is, once', async () => {
    const log = path.join(h.base, 'notify.jsonl');
    const notifyEnv = {
      PATH: `${path.join(FIX, 'notify-bin')}:${process.env.PATH ?? ''}`,
      MADOHUB_FAKE_NOTIFY_LOG: log,
    };
    const told = (name: string): string[] =>
      (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [])
        .map((l) => (JSON.parse(l) as { argv: string[] }).argv)
        .filter((argv) => (argv[argv.indexOf('--') + 1] ?? '').startsWith(`${name}:`))
        .map((argv) => `${argv[argv.indexOf('--') + 1]} | ${argv[argv.indexOf('--') + 2]}`);
    const a = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'writer'], undefined, notifyEnv)).stdout);
    // The reviewer works on a route's text, and once its first turn ended, works again on its own.
    const reviewerEnv = {
      ...notifyEnv,
      MADOHUB_FIXTURE_WORK_ON_ROUTE: '1',
      MADOHUB_FIXTURE_AGAIN_MS: '1500',
      MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_*',
    };
    const b = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'], undefined, reviewerEnv)).stdout);
    await until(h.jobs, (j) => j.length === 2 && j.every((x) => x.alive === true && x.tempo === 'idle'));
    expect((await h.mado(['route', 'add', 'writer', 'reviewer'], undefined, notifyEnv)).code).toBe(0);
    expect((await h.mado(['send', a, 'work'], undefined, notifyEnv)).code).toBe(0);
    // The route's turn ends: not told (looked at once it works again, 1.5 s later).
    const reviewer = (): Promise<{ turns: number; tempo: string }> =>
      h
        .jobs()
        .then((j) => j.find((x) => x.short === b))
        .then((x) => ({ turns: Number(x?.turnsEnded ?? 0), tempo: String(x?.tempo ?? '') }));
    expect(await until(reviewer, (r) => r.turns >= 1, 20000)).toMatchObject({ turns: 1 });
    expect(await until(reviewer, (r) => r.tempo === 'active' || r.turns >= 2, 10000)).toEqual({
      turns: 1,
      tempo: 'active',
    });
    expect(told('reviewer')).toEqual([]);
    // Its own next turn ends: told, once.
    expect(await until(reviewer, (r) => r.turns >= 2, 20000)).toMatchObject({ turns: 2 });
    const notices = await until(
      () => Promise.resolve(told('reviewer')),
      (t) => t.length >= 1,
      10000,
    );
    expect(notices).toEqual([`reviewer: Claude Code Stopped | ${notices[0]!.split(' | ')[1]}`]);
    expect(notices[0]).toContain(`mado attach ${b}`);
    await until(
      () => Promise.resolve(told('reviewer')),
      (t) => t.length > 1,
      2000,
    );
    expect(told('reviewer')).toHaveLength(1);
  }, 60000);
});

describe('a daemon’s route over 20 turns', () => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });

  it('hands each turn’s answer to the target once, after that turn ended, never the turn before’s', async () => {
    // Each writer's turn takes 2.1 s: past a route's gap (one firing every 2 s) without waiting on a clock.
    const env = { MADOHUB_FIXTURE_WORK_MS: '2100', MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_WORK_MS' };
    const a = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'writer'], undefined, env)).stdout);
    const b = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    await until(h.jobs, (j) => j.length === 2 && j.every((x) => x.alive === true && x.tempo === 'idle'));
    expect((await h.mado(['route', 'add', 'writer', 'reviewer'])).code).toBe(0);
    const delivered = (t: string): string[] =>
      t.match(/You said: \[mado route writer → reviewer · hop 1\/3\]\nTurn \d+ is done\./g) ?? [];
    for (let turn = 1; turn <= 20; turn++) {
      expect((await h.mado(['send', a, 'work'])).code).toBe(0);
      // Nothing for this turn while it works.
      await until(h.jobs, (j) => j.find((x) => x.short === a)?.tempo === 'active', 5000);
      expect(delivered((await h.mado(['logs', b])).stdout), `turn ${turn} at work`).toHaveLength(turn - 1);
      const logs = await until(
        async () => (await h.mado(['logs', b])).stdout,
        (t) => delivered(t).length >= turn,
        15000,
      );
      // This turn's answer, once, after the answers of the turns before, each once.
      expect(delivered(logs), `turn ${turn}`).toEqual(
        Array.from(
          { length: turn },
          (_, i) => `You said: [mado route writer → reviewer · hop 1/3]\nTurn ${i + 1} is done.`,
        ),
      );
      expect((await h.jobs()).find((x) => x.short === a)?.status, `turn ${turn} ended first`).toBe('done');
    }
  }, 150000);
});

describe('routes.json, faulty', () => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });
  const route = (i: number, a: string, b: string): object => ({
    id: `r${i}`,
    source: `job:${a}`,
    target: `job:${b}`,
    targetName: 'b',
    on: 'done',
    send: 'last',
    template: '',
    hops: 3,
    once: false,
    review: false,
    paused: false,
    createdAt: 1,
  });

  it('a file cut short is kept aside and named, not read as no routes and overwritten by the next add', async () => {
    const jobs = path.join(h.base, 'jobs');
    mkdirSync(jobs, { recursive: true });
    const file = path.join(jobs, 'routes.json');
    writeFileSync(file, '{"version": 1, "routes": [{"id": "r1", "sou');
    const ls = await h.mado(['route', 'ls']);
    expect(ls.stdout).toBe('no routes\n');
    expect(ls.stderr).toMatch(
      /^mado route: routes\.json could not be read \(not JSON \(cut short\?\)\): kept aside as .*routes\.json\.bad-\d+\n$/,
    );
    const aside = readdirSync(jobs).filter((n) => n.startsWith('routes.json.bad-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(jobs, aside[0]!), 'utf8')).toBe('{"version": 1, "routes": [{"id": "r1", "sou');
    expect(readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8')).toMatch(
      /routes: routes\.json could not be read/,
    );
  });

  it('of 1,000 routes, those past the bound and the entries that are none are said, not dropped without a word', async () => {
    const jobs = path.join(h.base, 'jobs');
    mkdirSync(jobs, { recursive: true });
    // Two ended jobs the routes join.
    for (const short of ['0000000a', '0000000b'])
      createJob(jobs, { ...blankJob(short), status: 'stopped', cwd: h.base, originCwd: h.base });
    const routes = [
      ...Array.from({ length: 1000 }, (_, i) => route(i, '0000000a', '0000000b')),
      { id: 'x', source: 'nope' },
    ];
    writeFileSync(path.join(jobs, 'routes.json'), JSON.stringify({ version: 1, routes }), { mode: 0o600 });
    const ls = await h.mado(['route', 'ls', '--json']);
    expect(JSON.parse(ls.stdout)).toHaveLength(200);
    expect(ls.stderr).toMatch(
      /^mado route: 1 entries of routes\.json are no routes: left out\nmado route: 800 routes of routes\.json are past the bound of 200 routes: left out \(the whole file is kept as .*routes\.json\.past-\d+\)\n$/,
    );
    // The next change writes the file again: the 800 are not lost, the file kept aside holds them all.
    const aside = readdirSync(jobs).filter((n) => n.startsWith('routes.json.past-'));
    expect(aside).toHaveLength(1);
    expect((JSON.parse(readFileSync(path.join(jobs, aside[0]!), 'utf8')) as { routes: unknown[] }).routes).toHaveLength(
      1001,
    );
    expect(statSync(path.join(jobs, aside[0]!)).mode & 0o777).toBe(0o600);
  });

  it('a routes.json others may write is made 0600, said; routes whose ends are jobs that are not there are pruned, each said', async () => {
    const jobs = path.join(h.base, 'jobs');
    mkdirSync(jobs, { recursive: true });
    createJob(jobs, { ...blankJob('0000000a'), status: 'stopped', cwd: h.base, originCwd: h.base });
    const file = path.join(jobs, 'routes.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, routes: [route(1, '0000000a', '0000000c'), route(2, '0000000d', '0000000a')] }),
    );
    chmodSync(file, 0o666);
    const ls = await h.mado(['route', 'ls']);
    expect(ls.stderr).toContain('mado route: routes.json could be read or written by others (mode 0666): now 0600\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(
      await until(
        async () => (await h.mado(['route', 'ls', '--json'])).stdout,
        (t) => JSON.parse(t).length === 0,
        8000,
      ),
    ).toBe('[]\n');
    const log = readFileSync(path.join(h.base, 'run', 'daemon.log'), 'utf8');
    expect(log).toMatch(/route r1 \(job:0000000a → b\) removed: no job 0000000c/);
    expect(log).toMatch(/route r2 \(job:0000000d → b\) removed: no job 0000000d/);
  });
});

describe.each(testNeovims())('Neovim $label: a route between jobs', ({ path: exe }) => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });

  it('goes to the daemon (mado route ls shows it); Lua lists it and removes it there', async () => {
    const a = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'writer'])).stdout);
    const b = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    const s = await startNeovim(exe, h.neovimEnv());
    try {
      await s.lua(`require('madohub.node').ensure()`);
      expect(await s.waitFor(`#require('madohub').agents({ kind = 'job' }) == 2`, 10000)).toBe(true);
      const id = await s.lua<string>(`return require('madohub').route('writer', 'job:${b}')`);
      expect(JSON.parse((await h.mado(['route', 'ls', '--json'])).stdout)).toMatchObject([
        { id, source: `job:${a}`, target: `job:${b}` },
      ]);
      expect(await s.waitFor(`#require('madohub').routes() == 1`, 5000)).toBe(true);
      // One chain across both places: a route of this Neovim from the reviewer job back to the
      // writer (through nothing else) closes a cycle with the daemon's writer → reviewer.
      const back = await s.lua<string>(
        `local ok, err = pcall(require('madohub').route, 'job:${b}', 'job:${a}', { review = true }) return ok and 'added' or tostring(err)`,
      );
      expect(back).toMatch(/closes a cycle/);
      await s.lua(`require('madohub').unroute('${id}')`);
      expect(
        (
          await until(
            () => h.mado(['route', 'ls']),
            (r) => r.stdout === 'no routes\n',
            5000,
          )
        ).stdout,
      ).toBe('no routes\n');
      expect(await s.waitFor(`#require('madohub').routes() == 0`, 5000)).toBe(true);
      // And the other way round: this Neovim's route first, then one the daemon would keep.
      const mine = await s.lua<string>(`return require('madohub').route('job:${b}', 'job:${a}', { review = true })`);
      expect(mine).toMatch(/^\w+$/);
      const again = await s.lua<string>(
        `local ok, err = pcall(require('madohub').route, 'writer', 'job:${b}') return ok and 'added' or tostring(err)`,
      );
      expect(again).toMatch(/closes a cycle .*through this Neovim's routes/);
      expect((await h.mado(['route', 'ls'])).stdout).toBe('no routes\n');
    } finally {
      await s.close();
    }
  }, 60000);

  it('a new Neovim lists the routes the daemon keeps from its start, before any of them changes', async () => {
    const a = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'writer'])).stdout);
    const b = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    expect(await h.mado(['route', 'add', a, b])).toMatchObject({ code: 0 });
    const s = await startNeovim(exe, h.neovimEnv());
    try {
      await s.lua(`require('madohub').setup({}) require('madohub.node').ensure()`);
      expect(
        await s.waitFor(
          `#require('madohub').routes() == 1 and require('madohub').routes()[1].keeper == 'daemon'`,
          10000,
        ),
      ).toBe(true);
    } finally {
      await s.close();
    }
  }, 60000);

  it('a cycle through the daemon’s routes and this Neovim’s is one chain: it stops where it began, where it looped for ever', async () => {
    const a = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'writer'])).stdout);
    const b = shortOf((await h.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    const s = await startNeovim(exe, h.neovimEnv());
    try {
      // A template whose payload ends with `work`: the replier that gets it works, and ends a turn.
      await s.lua(`require('madohub').setup({ routes = { templates = { loop = 'Reply with: work\\nwork' } } })`);
      const t = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
      expect(
        await s.waitFor(
          `#require('madohub').agents({ kind = 'job' }) == 2 and #require('madohub').agents({ kind = 'terminal' }) == 1`,
          10000,
        ),
      ).toBe(true);
      await s.lua(`_G.held = {}
        vim.api.nvim_create_autocmd('User', { pattern = 'MadoRouteHeld', callback = function(ev) table.insert(_G.held, ev.data.reason) end })`);
      // writer → reviewer (the daemon keeps it), reviewer → the terminal → writer (this Neovim).
      await s.lua(`require('madohub').route('job:${a}', 'job:${b}', { template = 'loop' })`);
      await s.lua(`require('madohub').route('job:${b}', 'term:${t}', { template = 'loop' })`);
      await s.lua(`require('madohub').route('term:${t}', 'job:${a}', { template = 'loop', hops = 9 })`);
      expect(JSON.parse((await h.mado(['route', 'ls', '--json'])).stdout)).toHaveLength(1);
      expect(await h.mado(['send', a, 'work'])).toMatchObject({ code: 0 });
      // writer → reviewer (hop 1, by the daemon), reviewer → the terminal (hop 2, here); the
      // terminal → writer would come back to where the chain began.
      const held = await until(
        () => s.lua<string[]>('return _G.held'),
        (v) => v.some((r) => r.includes('in this chain already')),
        30000,
      );
      expect(held.find((r) => r.includes('in this chain already'))).toBe(
        `not sent: job:${a} is in this chain already (job:${a} → job:${b} → term:${t} → job:${a})`,
      );
      const terminal = await s.lua<string>(
        `return table.concat(vim.api.nvim_buf_get_lines(${t}, 0, -1, false), '\\n')`,
      );
      expect(terminal).toContain('[mado route reviewer → ');
      expect(terminal).toContain('· hop 2/3]');
      // Long enough for a route that would fire again (none may).
      await elapse(4000);
      expect((await h.mado(['logs', a])).stdout).not.toContain('[mado route');
      expect((await h.mado(['logs', b])).stdout.split('[mado route writer → reviewer').length - 1).toBe(1);
    } finally {
      await s.close();
    }
  }, 90000);
});
