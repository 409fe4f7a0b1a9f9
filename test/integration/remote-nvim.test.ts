// A remote host's jobs in Neovim (0.10 and 0.12), typed as a person meets them: listed in
// :MadoAgents (`h:box` filters them), peeked, answered with a digit, replied to, attached in a split
// (`:MadoAttach box:ID`), started with `n` (`@agent --host box …`). The remote side is this machine
// with a second set of folders, reached through a shell (ssh-hosts.test runs the link over ssh).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bridgesOf, FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { openTerminal, ROOT, said, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';

describe.each(testNeovims())('Neovim $label: a remote host’s jobs', ({ path: exe }) => {
  const templates = {
    approver: { command: ['node', path.join(FIX, 'bin/approver')], prompt: 'type' },
    replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' },
  };
  const remote = useJobsHarness(templates, 'file');
  const local = useJobsHarness(templates, 'file');
  let s: Session;
  let screen: Screen;
  let short = '';
  let down = '';
  let tries = '';
  let hostsJson = '';
  let shell: string[] = [];
  const MADO = `${process.execPath} ${path.join(ROOT, 'dist/mado.js')}`;
  const triesSoFar = (): number => (existsSync(tries) ? readFileSync(tries, 'utf8').split('\n').length - 1 : 0);
  const bridges = (): number[] => bridgesOf(remote.env.MADOHUB_JOBS_DIR!);
  afterAll(async () => {
    await screen?.detach();
    await s?.close();
  });
  const messages = (): Promise<string> => s.lua<string>(`return vim.fn.execute('messages')`);
  const goTo = (text: RegExp): Promise<void> => screen.goTo(text);

  it('lists them beside this machine’s, and h:box shows them alone', async () => {
    short = shortOf((await remote.mado(['--bg', '--agent', 'approver', '-n', 'far away', 'go'])).stdout);
    await local.mado(['--bg', '--agent', 'approver', '-n', 'close by', 'go']);
    const config = path.join(local.base, 'config');
    mkdirSync(path.join(config, 'madohub'), { recursive: true });
    // A host that can be taken down: while the flag file is there, its "ssh" is refused.
    down = path.join(local.base, 'box-down');
    const env = ['MADOHUB_TEMPLATES', 'MADOHUB_JOBS_DIR', 'MADOHUB_RUNTIME_DIR']
      .map((k) => `${k}='${remote.env[k]}'`)
      .join(' ');
    // Each try of its link is counted (a line in box-tries).
    tries = path.join(local.base, 'box-tries');
    shell = [
      'sh',
      '-c',
      `echo >> '${tries}'; if [ -e '${down}' ]; then echo 'ssh: connect to host box port 22: Connection refused' >&2; exit 255; fi; exec env ${env} sh`,
    ];
    hostsJson = path.join(config, 'madohub', 'hosts.json');
    writeFileSync(hostsJson, JSON.stringify({ box: { command: shell, mado: MADO } }));
    s = await startNeovim(exe, { ...local.neovimEnv(), XDG_CONFIG_HOME: config });
    screen = await Screen.attach(s.nvim, 160, 48);
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(/◆ Waiting +far away +Claude Code +job on box /, 20000);
    await screen.waitForText(/◆ Waiting +close by +Claude Code +job /);
    await screen.type('/');
    await screen.type('h:box<CR>');
    await screen.waitForNoText(/close by/);
    expect(screen.text()).toMatch(/far away +Claude Code +job on box/);
    // Its row in agents(): the host named, its id the host's.
    const e = await s.lua<{ id: string; host: string; short: string }[]>(
      `return vim.tbl_map(function(e) return { id = e.id, host = e.host, short = e.short } end, require('madohub').agents({ kind = 'job' }))`,
    );
    expect(e.find((x) => x.host === 'box')).toEqual({ id: `job:box:${short}`, host: 'box', short });
    // It began to wait while nothing followed the host (no Neovim, no link of the daemon's): told
    // now that this Neovim does, once (its own notice, or a burst's summary naming it).
    const told = `vim.fn.execute('messages'):find('Waiting in job box:${short} (far away)', 1, true) or vim.fn.execute('messages'):find('far away (Waiting)', 1, true)`;
    expect(await s.waitFor(`(${told}) ~= nil`, 10000), await messages()).toBe(true);
    expect((await messages()).match(/Claude Code is Waiting in job box:\w+ \(far away\)/g) ?? []).toHaveLength(
      (await messages()).includes('far away (Waiting)') ? 0 : 1,
    );
  }, 60000);

  it('peeks at it with <Space>, answers its menu with a digit, replies with r', async () => {
    await goTo(/far away/);
    await screen.type('<Space>');
    await screen.waitForText(/Do you want to proceed\?/, 10000);
    await screen.type('<Space>');
    await screen.type('1');
    await screen.waitForText(/answered far away: 1\. Yes/, 10000);
    expect(
      await until(
        () => remote.mado(['logs', short]).then((r) => r.stdout),
        (t) => t.includes('chose 1'),
        8000,
      ),
    ).toContain('chose 1');
    await screen.type('r');
    await screen.waitForText('-- INSERT --');
    await screen.type('over the wire<CR>');
    // Said by the job's host there: the reply went across and was taken.
    await screen.waitForText(/sent to far away|far away: (queued|held: draft)/, 10000);
  }, 60000);

  it('renames and pins its row, as this machine’s (R, p, <C-t>)', async () => {
    await goTo(/far away/);
    await screen.type('R');
    await screen.waitForText(/Rename far away/);
    await screen.type('<C-u>far and wide<CR>');
    await screen.waitForText(/ far and wide +Claude Code +job on box /, 8000);
    await goTo(/far and wide/);
    await screen.type('p');
    await screen.waitForText('Pinned (1)', 8000);
    expect(screen.text()).toMatch(/Pinned \(1\)[\s\S]*far and wide +Claude Code +job on box/);
    await goTo(/far and wide/);
    await screen.type('<C-t>');
    await screen.waitForNoText('Pinned (1)', 8000);
    await goTo(/far and wide/);
    await screen.type('R');
    await screen.waitForText(/Rename far and wide/);
    await screen.type('<C-u>far away<CR>');
    await screen.waitForText(/ far away +Claude Code +job on box /, 8000);
  }, 60000);

  it('n starts a job there with --host box; :MadoAttach box:ID opens it in a split', async () => {
    await screen.type('n');
    await screen.waitForText('-- INSERT --');
    await screen.type('@approver --host box started from the picker<CR>');
    await screen.waitForText(/started job box:[0-9a-f]{8}/, 20000);
    const started = /started job box:([0-9a-f]{8})/.exec(await messages())![1]!;
    expect((await remote.jobs()).map((j) => j.short)).toContain(started);
    await screen.type('q');
    await screen.waitForNoText(/Agents · /);
    await screen.type(`:MadoAttach box:${short}<CR>`);
    expect(await s.waitFor(`vim.b.madohub_job == 'box:${short}'`, 10000)).toBe(true);
    expect(await s.lua<string>('return vim.bo.buftype')).toBe('terminal');
    expect(await s.lua<string>('return vim.api.nvim_buf_get_name(0)')).toMatch(new RegExp(`mado://job/box:${short}$`));
    await screen.waitForText(/Claude Code/, 10000);
    // A job that is not there is said, and nothing opens.
    const wins = await s.lua<number>('return #vim.api.nvim_list_wins()');
    await s.lua(`vim.cmd('messages clear')`);
    await screen.type(':MadoAttach box:nosuchjob<CR>');
    expect(await s.waitFor(`vim.fn.execute('messages'):find('box: no job', 1, true) ~= nil`, 5000)).toBe(true);
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(wins);
  }, 60000);

  it('x stops a job there, x again kills it, d removes it once ended: its daemon asked as this machine’s', async () => {
    const started = (await remote.jobs()).find((j) => j.intent === 'started from the picker')!;
    const id = `job:box:${started.short}`;
    expect(await s.waitFor(`#require('madohub').agents({ id = '${id}' }) == 1`, 10000)).toBe(true);
    const name = await s.lua<string>(`return require('madohub').agents({ id = '${id}' })[1].name`);
    const row = new RegExp(`[○■✗●◆◉] +\\S+ +${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +Claude Code +job on box`);
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(row, 10000);
    await goTo(row);
    await screen.type('d');
    await screen.waitForText(`${name} runs: stop it first`);
    await screen.type('x');
    await screen.waitForText(`stopping ${name}`, 10000);
    await goTo(row);
    await screen.type('x');
    await screen.waitForText(`killed ${name}`, 15000);
    expect(
      (await until(remote.jobs, (js) => js.find((j) => j.short === started.short)?.alive === false, 15000)).find(
        (j) => j.short === started.short,
      )?.alive,
    ).toBe(false);
    expect(await s.waitFor(`(require('madohub').agents({ id = '${id}' })[1] or {}).ended == true`, 10000)).toBe(true);
    // <CR> on it, ended: respawned there and attached at once (its start answered, though the host's
    // list may not say it runs yet).
    await goTo(row);
    await screen.type('<CR>');
    expect(await s.waitFor(`vim.b.madohub_job == 'box:${started.short}'`, 15000), await messages()).toBe(true);
    expect(await messages()).not.toMatch(/is not running/);
    expect(
      (await until(remote.jobs, (js) => js.find((j) => j.short === started.short)?.alive === true, 15000)).find(
        (j) => j.short === started.short,
      )?.alive,
    ).toBe(true);
    await s.lua(`vim.cmd('bwipeout!')`);
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(row, 10000);
    await goTo(row);
    await screen.type('x');
    await screen.waitForText(`stopping ${name}`, 10000);
    await goTo(row);
    await screen.type('x');
    expect(await s.waitFor(`(require('madohub').agents({ id = '${id}' })[1] or {}).ended == true`, 15000)).toBe(true);
    await goTo(row);
    await screen.type('d');
    await screen.waitForText(`removed ${name}`, 15000);
    expect(await until(remote.jobs, (js) => !js.some((j) => j.short === started.short), 15000)).not.toContainEqual(
      expect.objectContaining({ short: started.short }),
    );
    await screen.waitForNoText(row, 10000);
    await screen.type('q');
    await screen.waitForNoText(/Agents · /);
  }, 60000);

  it(':MadoRoute box:NAME hands a terminal’s finished turn to a job there', async () => {
    const reviewer = shortOf((await remote.mado(['--bg', '--agent', 'replier', '-n', 'reviewer'])).stdout);
    await s.waitFor(`#require('madohub').agents({ id = 'job:box:${reviewer}' }) == 1`, 10000);
    const writer = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
    expect(await s.waitFor(`(require('madohub').state(${writer}) or {}).state == 'idle'`, 10000)).toBe(true);
    await s.lua(`vim.cmd('messages clear') vim.api.nvim_set_current_buf(${writer})`);
    await s.lua(
      `vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(':MadoRoute box:reviewer<CR>', true, false, true), 'mx', false)`,
    );
    expect(await s.waitFor(said('→ reviewer'), 10000)).toBe(true);
    expect(await messages()).toMatch(/route \w+ +.+ → reviewer +on=done/);
    expect(await s.lua<string>(`return require('madohub').routes()[1].target`)).toBe(`job:box:${reviewer}`);
    await s.lua(`vim.api.nvim_chan_send(vim.bo[${writer}].channel, ...)`, ['work\r']);
    const logs = await until(
      () => remote.mado(['logs', reviewer]).then((r) => r.stdout),
      (t) => t.includes('[mado route'),
      20000,
    );
    expect(logs).toMatch(/\[mado route .+ → reviewer · hop 1\/3\]/);
    await s.lua(`require('madohub').unroute(require('madohub').routes()[1].id)`);
  }, 60000);

  it(':MadoLogs box:ID shows its output there in a split: its lines sent as data by the host', async () => {
    const wins = await s.lua<number>('return #vim.api.nvim_list_wins()');
    await screen.type(`:MadoLogs box:${short}<CR>`);
    expect(await s.waitFor(`vim.api.nvim_buf_get_name(0):find('mado://logs/${short}', 1, true) ~= nil`, 10000)).toBe(
      true,
    );
    // The whole of it (the window shows its end): what the job did after its menu was answered here.
    expect(await s.lua<string>(`return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n')`)).toContain(
      'chose 1',
    );
    await screen.waitForText(/mado:\/\/logs\/\w+.* \d+,1 +Bot/);
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(wins + 1);
    await screen.type(':close<CR>');
    // A job that is not there is said in the host's words, and nothing opens.
    await s.lua(`vim.cmd('messages clear')`);
    await screen.type(':MadoLogs box:nosuchjob<CR>');
    expect(await s.waitFor(`vim.fn.execute('messages'):find("no job 'nosuchjob'", 1, true) ~= nil`, 5000)).toBe(true);
    expect(await s.lua<number>('return #vim.api.nvim_list_wins()')).toBe(wins);
  }, 30000);

  it('a hidden job there that starts waiting is told, as this machine’s are', async () => {
    const asks = shortOf(
      (
        await remote.mado(['--bg', '--agent', 'approver', '-n', 'asks again', 'go'], undefined, {
          MADOHUB_FIXTURE_ASK_AGAIN_MS: '2000',
          MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_*',
        })
      ).stdout,
    );
    // Answered in the picker, it asks again 2 s later, out of sight (the picker closed).
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(/◆ Waiting +asks again +Claude Code +job on box/, 15000);
    await goTo(/asks again/);
    await screen.type('1');
    await screen.waitForText(/answered asks again: 1\. Yes/, 10000);
    await screen.type('q');
    await s.lua(`vim.cmd('messages clear')`);
    // Its own notice (`… is Waiting in job box:ID (asks again)`), or a burst's summary that names it.
    const told = `vim.fn.execute('messages'):find('Waiting in job box:${asks}', 1, true) or vim.fn.execute('messages'):find('asks again (Waiting)', 1, true)`;
    expect(await s.waitFor(`(${told}) ~= nil`, 15000), await messages()).toBe(true);
    // A restarted Node process finds it waiting on the wait told: no news.
    await screen.type(':messages clear<CR>');
    await screen.type(':MadoRestart<CR>');
    const listed = `require('madohub.node').running() and vim.iter(require('madohub').agents({ kind = 'job' })):any(function(e) return e.id == 'job:box:${asks}' and e.state == 'waiting' and e.needs ~= vim.NIL end)`;
    expect(await s.waitFor(listed, 15000), await messages()).toBe(true);
    expect(await messages()).not.toMatch(/asks again/);
  }, 60000);

  it('a host that goes down shows its rows offline with why within 2 s; back, they are there once', async () => {
    await screen.type(':MadoAgents<CR>');
    await screen.waitForText(/Agents · /);
    const before = (await remote.jobs()).length;
    writeFileSync(down, '');
    for (const pid of bridges()) process.kill(pid, 'SIGKILL');
    const t0 = Date.now();
    await screen.waitForText(/far away +Claude Code +job on box +box offline: the link to box ended/, 4000);
    expect(Date.now() - t0).toBeLessThan(2500);
    // Each of its rows says so, a waiting one too (its question cannot be answered meanwhile).
    const details = await s.lua<string[]>(
      `return vim.tbl_map(function(e) return e.detail end, require('madohub').agents({ kind = 'job' }))`,
    );
    const offline = details.filter((d) => d.startsWith('box offline: '));
    expect(offline).toHaveLength(before);
    expect(offline[0]).toBe(
      'box offline: the link to box ended with status 255: ssh: connect to host box port 22: Connection refused',
    );
    expect(screen.text()).not.toMatch(/job on box +Do you want to proceed/);
    const health = `vim.cmd('checkhealth madohub') local t = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\\n') vim.cmd('tabclose') return t`;
    expect(await s.lua<string>(health)).toMatch(
      /box: offline: the link to box ended with status 255: ssh: connect to host box port 22: Connection refused/,
    );
    // This machine's own rows are not held up.
    expect(details.some((d) => d.startsWith('box offline'))).toBe(true);
    expect(
      (await s.lua<{ detail: string }[]>(`return require('madohub').agents({ kind = 'job' })`)).filter(
        (e) => !e.detail.startsWith('box offline'),
      ),
    ).not.toHaveLength(0);
    // Down long enough that a growing wait (1, 2, 4, 8 s) would be at its fourth: back, it is linked
    // within 2 s of answering (the next try), not at the end of a long wait.
    const at = triesSoFar();
    expect(
      (await until(
        async () => triesSoFar(),
        (n) => n >= at + 3,
        15000,
      )) >=
        at + 3,
    ).toBe(true);
    rmSync(down);
    const back = Date.now();
    expect(
      await s.waitFor(
        `#vim.tbl_filter(function(e) return vim.startswith(e.detail, 'box offline') end, require('madohub').agents({ kind = 'job' })) == 0`,
        15000,
      ),
    ).toBe(true);
    expect(Date.now() - back).toBeLessThan(3500);
    expect(await s.lua<string>(health)).toMatch(/box: linked \(mado \d+\.\d+\.\d+\)/);
    const rows = await s.lua<string[]>(
      `return vim.tbl_map(function(e) return e.id end, require('madohub').agents({ kind = 'job' }))`,
    );
    expect(rows.filter((id) => id.startsWith('job:box:'))).toHaveLength(before);
    expect(new Set(rows).size).toBe(rows.length);
    expect(existsSync(down)).toBe(false);
  }, 60000);
  it(':MadoHosts shows each host; retry tries an offline one at once; a changed hosts.json is followed', async () => {
    await screen.type(':MadoHosts<CR>');
    await screen.waitForText(/^box {2}online {2}mado \d+\.\d+\.\d+ {2}\d+ jobs?$/m, 5000);
    // Down: retry tries it now, as typed.
    writeFileSync(down, '');
    for (const pid of bridges()) process.kill(pid, 'SIGKILL');
    expect(
      await s.waitFor(
        `vim.iter(require('madohub').agents({ kind = 'job' })):any(function(e) return vim.startswith(e.detail, 'box offline') end)`,
        5000,
      ),
    ).toBe(true);
    await screen.type(':MadoHosts<CR>');
    await screen.waitForText(
      /^box {2}offline: the link to box (?:was killed by SIGKILL|ended with status 255: ssh: connect to host box port 22: Connection refused)$/m,
      5000,
    );
    const before = triesSoFar();
    await screen.type(':MadoHosts retry box<CR>');
    await screen.waitForText(/trying again: box|box is online or being tried now/, 5000);
    expect(
      await until(
        async () => triesSoFar(),
        (n) => n > before,
        3000,
      ),
    ).toBeGreaterThan(before);
    await screen.type(':MadoHosts retry nope<CR>');
    await screen.waitForText(/:MadoHosts retry: no host "nope"/, 5000);
    rmSync(down);
    expect(
      await s.waitFor(
        `#vim.tbl_filter(function(e) return vim.startswith(e.detail, 'box offline') end, require('madohub').agents({ kind = 'job' })) == 0`,
        10000,
      ),
    ).toBe(true);
    expect(await s.lua<string[]>(`return vim.fn.getcompletion('MadoHosts retry ', 'cmdline')`)).toEqual(['box']);

    // hosts.json names a second host while Neovim runs: it is followed, its jobs listed; a broken
    // file is said; the host left out of it is let go.
    writeFileSync(
      hostsJson,
      JSON.stringify({ box: { command: shell, mado: MADO }, box2: { command: shell, mado: MADO } }),
    );
    expect(
      await s.waitFor(
        `vim.iter(require('madohub').agents({ kind = 'job' })):any(function(e) return e.host == 'box2' end)`,
        10000,
      ),
    ).toBe(true);
    await screen.type(':MadoHosts<CR>');
    await screen.waitForText(/^box2 {2}online {2}mado /m, 5000);
    // Two lines: Neovim's own hit-enter prompt.
    await screen.waitForText(/Press ENTER/);
    await screen.type('<CR>');
    // Half written: said, and the hosts read before are kept.
    writeFileSync(hostsJson, '{ "box": ');
    expect(
      await s.waitFor(`vim.fn.execute('messages'):find('hosts.json: not JSON', 1, true) ~= nil`, 5000),
      await messages(),
    ).toBe(true);
    expect(await messages()).toMatch(/the hosts read before are kept/);
    expect(
      await s.lua<boolean>(
        `return vim.iter(require('madohub').agents({ kind = 'job' })):any(function(e) return e.host == 'box2' end)`,
      ),
    ).toBe(true);
    writeFileSync(hostsJson, JSON.stringify({ box: { command: shell, mado: MADO } }));
    expect(
      await s.waitFor(
        `not vim.iter(require('madohub').agents({ kind = 'job' })):any(function(e) return e.host == 'box2' end)`,
        10000,
      ),
    ).toBe(true);
    expect(
      await s.waitFor(
        `vim.iter(require('madohub').agents({ kind = 'job' })):any(function(e) return e.host == 'box' end)`,
        10000,
      ),
    ).toBe(true);
  }, 60000);
});
