// Every key of :MadoAgents's `?` list, typed as a person types it into Neovim (0.10 and 0.12) with a
// UI attached, and checked on what is then on the screen: the rows, the panes, the input line, the
// messages, the window and buffer the cursor ends in. A last test checks that each action of
// picker/keys.lua has its typed test here.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';
import { Screen } from './screen.js';

/** The actions a test below types (the last test checks it is every action of keys.lua). */
const TYPED = new Set<string>();

describe.each(testNeovims())('Neovim $label: the picker’s keys, typed', ({ path: exe }) => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } }, 'file');
  let s: Session;
  let screen: Screen;
  let approver = 0;
  let replier = 0;
  let one = '';
  let two = '';

  const envOf = (): Record<string, string> => {
    const out = h.neovimEnv();
    out.HOME = path.join(h.base, 'home');
    out.PATH = `${path.join(FIX, 'bin')}:${process.env.PATH ?? ''}`;
    return out;
  };

  // One Neovim and one jobs folder for the tests of each Neovim: each goes on from the one before.
  afterAll(async () => {
    await screen?.detach();
    await s?.close();
  });
  // A test that failed halfway (an input line left open) leaves the next the list as a person would
  // find it: out of Insert mode, in the picker's list, so that one failure is not taken for many.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state !== 'fail' || !screen) return;
    await screen.type('<Esc><Esc>');
    await screen.waitFor(() => screen.mode === 'normal', 5000, 'Normal mode').catch(() => undefined);
    await open().catch(() => undefined);
  });

  const goTo = (text: string | RegExp): Promise<void> => screen.goTo(text);
  const messages = (): Promise<string> => s.lua<string>(`return vim.fn.execute('messages')`);
  const open = async (): Promise<void> => {
    if (!/Agents · /.test(screen.text())) await screen.type(':MadoAgents<CR>');
    await screen.waitForText(/Agents · /);
  };

  it('setting up: two terminals, two jobs, and the picker open', async () => {
    s = await startNeovim(exe, envOf());
    screen = await Screen.attach(s.nvim, 160, 48);
    await s.lua(`require('madohub').setup({ picker = { default_agent = 'shell' } })`);
    approver = await openTerminal(s, ['node', path.join(FIX, 'bin/approver')]);
    replier = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
    const home = { HOME: path.join(h.base, 'home') };
    one = shortOf((await h.mado(['--bg', '--agent', 'shell', '-n', 'shell one', 'echo one'], undefined, home)).stdout);
    two = shortOf((await h.mado(['--bg', '--agent', 'shell', '-n', 'shell two', 'echo two'], undefined, home)).stdout);
    await open();
    // The jobs settled (a job still starting leaves its group as it goes idle, which moves the rows).
    await screen.waitForText(/Idle +shell one/, 15000);
    await screen.waitForText(/Idle +shell two/, 15000);
    await screen.waitForText(/Waiting +claude/, 15000);
    await screen.waitForText(/Idle +claude/, 15000);
  }, 60000);

  it('down and up: j k <Down> <Up> <C-n> <C-p> move the cursor a row', async () => {
    TYPED.add('down').add('up');
    await goTo(/Waiting +claude/);
    for (const [down, up] of [
      ['j', 'k'],
      ['<Down>', '<Up>'],
      ['<C-n>', '<C-p>'],
    ] as const) {
      const at = screen.cursor.row;
      await screen.type(down);
      await screen.waitFor(() => screen.cursor.row > at, 2000, `${down} to move down`);
      await screen.type(up);
      await screen.waitFor(() => screen.cursor.row === at, 2000, `${up} to move up`);
    }
  });

  it('help: ? shows the keys of every action, ? again hides them', async () => {
    TYPED.add('help');
    await screen.type('?');
    await screen.waitForText('MadoAgents keys');
    for (const words of ['next row', 'close the picker', 'answer a numbered menu', 'start a job'])
      expect(screen.text()).toContain(words);
    await screen.type('?');
    await screen.waitForNoText('MadoAgents keys');
  });

  it('filter: / then a:shell<CR> leaves the shell jobs; <Esc> brings every row back', async () => {
    TYPED.add('filter').add('back');
    await screen.type('/');
    await screen.waitForText('Filter (a:agent');
    await screen.type('a:shell<CR>');
    await screen.waitForNoText(/Waiting +claude/);
    expect(screen.text()).toContain('shell one');
    expect(screen.text()).toContain('/a:shell');
    await screen.type('<Esc>');
    await screen.waitForText(/Waiting +claude/);
  });

  it('peek: <Space> shows the row’s live screen with its question first, <Space> hides it', async () => {
    TYPED.add('peek');
    await goTo(/Waiting +claude/);
    await screen.type('<Space>');
    await screen.waitForText(' Peek ');
    await screen.waitForText('Asks: Do you want to proceed?');
    await screen.type('<Space>');
    await screen.waitForNoText(' Peek ');
  });

  it('choose: 2 answers the approval with its second choice', async () => {
    TYPED.add('choose');
    await goTo(/Waiting +claude/);
    await screen.type('2');
    await screen.waitForText(/answered .*: 2\./);
    const has = `table.concat(vim.api.nvim_buf_get_lines(${approver}, 0, -1, false), '\\n'):find('chose 2', 1, true) ~= nil`;
    expect(await s.waitFor(has, 8000)).toBe(true);
    await screen.waitForNoText(/Waiting +claude/, 8000);
  });

  it('reply: r opens the input line for the row, <CR> sends; the agent says it got it', async () => {
    TYPED.add('reply');
    await goTo(/Idle +claude.*split 1/);
    await screen.type('r');
    await screen.waitForText(/Reply to /);
    await screen.type('hello there<CR>');
    await screen.waitForText(/sent to /);
    const has = `table.concat(vim.api.nvim_buf_get_lines(${replier}, 0, -1, false), '\\n'):find('You said: hello there', 1, true) ~= nil`;
    expect(await s.waitFor(has, 8000)).toBe(true);
    // Back in the list, the input line empty again.
    await screen.waitForText('n: describe a task for a new agent');
  });

  it('rename: R and <C-r> put the name in the input line; the new name shows in the row', async () => {
    TYPED.add('rename');
    await goTo('shell two');
    await screen.type('R');
    await screen.waitForText(/Rename shell two/);
    await screen.type('<C-u>the second shell<CR>');
    // Said once renamed (the typed name itself is on the screen before <CR> is read).
    await screen.waitForText('renamed shell two to the second shell', 8000);
    await goTo('the second shell');
    await screen.type('<C-r>');
    await screen.waitForText(/Rename the second shell/);
    await screen.type('<Esc>');
    await screen.waitForNoText(/Rename the second shell/);
    // A terminal's name, once given, is in its winbar too; named back as it was.
    await goTo(/claude.*split 2/);
    await screen.type('R');
    await screen.waitForText(/Rename claude/);
    const was = /Rename (.+?) ─/.exec(screen.text())![1]!;
    expect(screen.text()).not.toMatch(new RegExp(`^ ${was} ·`, 'm'));
    await screen.type('<C-u>the approver<CR>');
    // (The picker covers the winbar but for its first columns.)
    await screen.waitForText(/^ the approver ·/m, 8000);
    await goTo('the approver');
    await screen.type('R');
    await screen.waitForText(/Rename the approver/);
    await screen.type(`<C-u>${was}<CR>`);
    await screen.waitForText(new RegExp(`^ ${was} ·`, 'm'), 8000);
  });

  it('pin: p pins the row into Pinned, <C-t> unpins it', async () => {
    TYPED.add('pin');
    await goTo('the second shell');
    await screen.type('p');
    await screen.waitForText('Pinned (1)', 8000);
    await goTo('the second shell');
    await screen.type('<C-t>');
    await screen.waitForNoText('Pinned (1)', 8000);
  });

  it('move: <M-j> moves a row down its group, <M-k> back up', async () => {
    TYPED.add('move_up').add('move_down');
    // The rows of the list (the footer and the messages may name an entry too), by name, in screen order.
    const names = (): string[] =>
      screen.lines().flatMap((l) => /│ {1,3}•?[○●◆◉✗■] +\S+ +(\S+(?: \S+)*) {2}/.exec(l)?.[1] ?? []);
    // Whether `a` is the row just above `b` (rows of another group in between are a header apart).
    const above = (a: string, b: string): boolean => {
      const n = names();
      return n.indexOf(a) >= 0 && n.indexOf(a) + 1 === n.indexOf(b);
    };
    const isRow = (l: string | undefined): boolean => l !== undefined && /│ {1,3}•?[○●◆◉✗■] /.test(l);
    await goTo('shell one');
    // Down when a row of its group is below it, else up (the rows' order in a group is the one it had).
    const down = isRow(screen.lines()[screen.cursor.row + 1]);
    const n = names();
    const neighbour = n[n.indexOf('shell one') + (down ? 1 : -1)]!;
    const [key, back] = down ? ['<M-j>', '<M-k>'] : ['<M-k>', '<M-j>'];
    const moved = (): boolean => (down ? above(neighbour, 'shell one') : above('shell one', neighbour));
    const placed = (): boolean => (down ? above('shell one', neighbour) : above(neighbour, 'shell one'));
    // Alt keys through nvim_feedkeys ('mx', the real mapping).
    await screen.feed(key);
    await screen.waitFor(moved, 8000, `${key} to move the row past ${neighbour}`);
    // The move back at once: a job's order shows as its file is written, not once it is read back (a
    // second move before then undid the first), and a move is drawn whole (never a half-moved group).
    await goTo('shell one');
    await screen.feed(back);
    await screen.waitFor(placed, 8000, `${back} to move it back`);
  });

  it('group by: gs groups by folder, gs again by state; fold: <Tab> folds a group and unfolds it', async () => {
    TYPED.add('group_by').add('fold');
    await screen.type('gs');
    await screen.waitForNoText(/Idle \(\d+\)/);
    await screen.type('gs');
    await screen.waitForText(/Idle \(\d+\)/);
    await goTo(/Idle \(\d+\)/);
    await screen.type('<Tab>');
    await screen.waitForNoText('shell one');
    await screen.type('<Tab>');
    await screen.waitForText('shell one');
  });

  it('seen: a turn that ends in sight is seen; out of sight it is marked •, u marks it seen and again unseen', async () => {
    TYPED.add('seen');
    const unseen = /•◉ Stopped +claude/;
    const turn = async (): Promise<void> => {
      await goTo(/claude.*split 1/);
      await screen.type('r');
      await screen.waitForText(/Reply to /);
      await screen.type('work<CR>');
      await screen.waitForText(/Working +claude.*split 1/, 10000);
      await screen.waitForText(/◉ Stopped +claude.*split 1/, 10000);
    };
    // Its split shows in this tab page and Neovim has the focus: seen as it ends, its row without •.
    await turn();
    await screen.waitForNoText(unseen);
    // Neovim without the focus (its terminal said so): nothing is in sight.
    await s.lua(`vim.api.nvim_exec_autocmds('FocusLost', {})`);
    await turn();
    await screen.waitForText(unseen);
    await goTo(/Stopped +claude/);
    await screen.type('u');
    await screen.waitForNoText(unseen);
    await screen.type('u');
    await screen.waitForText(unseen);
    // The focus back: in sight, so seen.
    await s.lua(`vim.api.nvim_exec_autocmds('FocusGained', {})`);
    await screen.waitForNoText(unseen);
  });

  it('review: D on the finished turn’s row opens its review in a tab; q closes it', async () => {
    TYPED.add('review');
    await goTo(/Stopped +claude/);
    await screen.type('D');
    await screen.waitForText(/Review · claude/, 10000);
    await screen.waitForText(/turn \d+ \(kept 1–\d+\)/);
    expect(await s.lua<number>('return #vim.api.nvim_list_tabpages()')).toBe(2);
    await screen.type('q');
    expect(await s.waitFor('#vim.api.nvim_list_tabpages() == 1')).toBe(true);
    await open();
  });

  it('mute: m mutes the row’s agent ([muted] on its row), m again unmutes it', async () => {
    TYPED.add('mute');
    await goTo(/claude.*split 1/);
    await screen.type('m');
    await screen.waitForText(/\[muted\].*split 1|split 1.*\[muted\]/);
    await screen.type('m');
    await screen.waitForNoText(/\[muted\]/);
  });

  it('stop and remove: x stops a job, x again within 3 s kills it; d removes the ended job', async () => {
    TYPED.add('stop').add('remove');
    await goTo('shell one');
    await screen.type('d');
    await screen.waitForText(/shell one runs: stop it first/);
    await screen.type('x');
    await screen.waitForText(/stopping shell one/);
    await screen.type('x');
    await screen.waitForText(/killed shell one/, 8000);
    await screen.waitForText(/Ended \(/, 10000);
    await goTo('shell one');
    await screen.type('d');
    await screen.waitForText(/removed shell one/, 8000);
    await screen.waitForNoText(/[○■✗●◆◉] +\S+ +shell one/, 8000);
  });

  it('new: n (or i) and a task start a job; a task that begins with -- is a prompt, not an option', async () => {
    TYPED.add('new');
    await screen.type('n');
    await screen.waitForText('-- INSERT --');
    await screen.type('echo started from the picker<CR>');
    await screen.waitForText(/started job [0-9a-f]{8}/, 15000);
    await screen.waitForText('echo started from the picker', 10000);
    // `i` too, and an agent named with @: the fixture claude gets the task after `--`.
    const started = async (): Promise<string[]> =>
      [...(await messages()).matchAll(/started job ([0-9a-f]{8})/g)].map((m) => m[1]!);
    const before = (await started()).length;
    await screen.type('i');
    await screen.waitForText('-- INSERT --');
    await screen.type('@claude --dangerously-skip-permissions<CR>');
    await screen.waitForText('--dangerously-skip-permissions', 15000);
    const short = (await until(started, (v) => v.length > before)).pop()!;
    const host = JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as { ptyPid: number };
    const argv = readFileSync(`/proc/${host.ptyPid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    expect(argv.slice(-2)).toEqual(['--', '--dangerously-skip-permissions']);
    // -n NAME names the job, as `mado --bg -n NAME` does.
    const count = (await started()).length;
    await screen.type('n');
    await screen.waitForText('-- INSERT --');
    await screen.type('-n "named here" echo named<CR>');
    const named = (await until(started, (v) => v.length > count)).pop()!;
    const job = JSON.parse(readFileSync(path.join(h.base, 'jobs', named, 'job.json'), 'utf8')) as {
      name: string;
      intent: string;
    };
    expect(job).toMatchObject({ name: 'named here', intent: 'echo named' });
    await screen.waitForText('named here', 10000);
  });

  it('new and attach: <M-CR> (and <C-CR>) start a job and attach it: the picker closes, its terminal is current', async () => {
    TYPED.add('new_attach').add('open').add('close');
    await screen.type('<M-CR>');
    await screen.waitForText('New agent (attach)');
    await screen.type('echo attached at once<CR>');
    await screen.waitForNoText(/Agents · /, 15000);
    expect(await s.waitFor('vim.b.madohub_job ~= nil', 10000)).toBe(true);
    expect(await s.lua<string>('return vim.bo.buftype')).toBe('terminal');
    // <CR> on a job's row attaches it in a split too; q closes.
    await screen.type('<C-\\><C-n>');
    await open();
    await goTo('the second shell');
    await screen.type('<CR>');
    await screen.waitForNoText(/Agents · /);
    expect(await s.waitFor(`vim.b.madohub_job == '${two}'`, 8000)).toBe(true);
    await screen.type('<C-\\><C-n>');
    await open();
    await screen.type('q');
    await screen.waitForNoText(/Agents · /);
    expect(one).not.toBe('');
  }, 60000);
});

describe('the typed tests', () => {
  it('type every action of picker/keys.lua', () => {
    const keysLua = readFileSync(path.join(__dirname, '../../lua/madohub/picker/keys.lua'), 'utf8');
    const order = /M\.order = \{([^}]*)\}/
      .exec(keysLua)![1]!
      .match(/'([a-z_]+)'/g)!
      .map((a) => a.slice(1, -1));
    expect(order.length).toBeGreaterThan(15);
    expect(order.filter((a) => !TYPED.has(a))).toEqual([]);
  });
});
