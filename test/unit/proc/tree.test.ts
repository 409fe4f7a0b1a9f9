import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentOfProcess, agentOfTree } from '../../../src/agents/index.js';
import type { ProcessInfo } from '../../../src/shared/types.js';
import { ProcessTree } from '../../../src/proc/tree.js';
import { PsTree, lsofNames } from '../../../src/proc/ps-tree.js';
import { sourceKind } from '../../../src/proc/source.js';
import type { ProcessSource } from '../../../src/proc/source.js';
import type { ProcessDescriptor } from 'ps-list';
import { elapse, until, untilValue } from '../../helpers/wait.js';

const proc = (pid: number, comm: string, argv: string[], exe = ''): ProcessInfo => ({ pid, ppid: 1, comm, argv, exe });

describe('agentOfProcess', () => {
  it.each<[string, ProcessInfo, string | undefined]>([
    ['native claude', proc(10, 'claude', ['claude'], '/home/u/.local/share/claude/versions/2.1.200'), 'claude'],
    ['claude.exe under a claude link', proc(10, 'claude.exe', ['/home/u/.local/bin/claude']), 'claude'],
    [
      'npm claude (node + bin/claude)',
      proc(10, 'node', ['node', '/usr/lib/node_modules/.bin/claude'], '/usr/bin/node'),
      'claude',
    ],
    [
      'npm claude cli.js',
      proc(10, 'node', ['node', '/x/node_modules/@anthropic-ai/claude-code/cli.js', '--resume'], '/usr/bin/node'),
      'claude',
    ],
    [
      'codex launcher (node …/bin/codex.js)',
      proc(10, 'node', ['node', '/x/node_modules/@openai/codex/bin/codex.js'], '/usr/bin/node'),
      'codex',
    ],
    [
      'codex native child',
      proc(11, 'codex', ['/x/node_modules/@openai/codex-linux-x64/vendor/codex/codex'], '/x/codex'),
      'codex',
    ],
    ['gemini (node …/gemini)', proc(10, 'node', ['node', '/usr/local/bin/gemini'], '/usr/bin/node'), 'gemini'],
    ['opencode', proc(10, 'opencode', ['opencode'], '/x/opencode'), 'opencode'],
    ['amp', proc(10, 'node', ['node', '/usr/local/bin/amp'], '/usr/bin/node'), 'amp'],
    ['bash', proc(10, 'bash', ['-bash'], '/usr/bin/bash'), undefined],
    ['node running something else', proc(10, 'node', ['node', 'server.js'], '/usr/bin/node'), undefined],
    ['an editor opening a file named claude', proc(10, 'vim', ['vim', 'claude'], '/usr/bin/vim'), undefined],
  ])('%s', (_name, p, agent) => {
    expect(agentOfProcess(p)).toBe(agent);
  });
});

describe('agentOfTree', () => {
  it('prefers Codex’s native child, whose files tell its session', () => {
    const tree = [
      proc(1, 'bash', ['bash']),
      proc(2, 'node', ['node', '/x/@openai/codex/bin/codex.js'], '/usr/bin/node'),
      proc(3, 'codex', ['/x/codex'], '/x/codex'),
    ];
    expect(agentOfTree(tree)).toEqual({ agent: 'codex', pid: 3 });
  });
  it('a shell alone is no agent', () => {
    expect(agentOfTree([proc(1, 'bash', ['bash']), proc(2, 'ls', ['ls'])])).toBeUndefined();
  });
});

describe.each([
  ['/proc', (): ProcessSource => new ProcessTree()],
  ['ps-list and lsof (the portable source, as on macOS)', (): ProcessSource => new PsTree()],
])('the process tree read from %s (this system)', (_name, newTree) => {
  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const c of children) c.kill('SIGKILL');
  });

  it('finds a fixture named like the agent two levels below the root', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-proc-'));
    mkdirSync(path.join(dir, 'bin'));
    const claude = path.join(dir, 'bin', 'claude');
    writeFileSync(claude, '#!/usr/bin/env node\nsetInterval(() => {}, 1000);\n');
    chmodSync(claude, 0o755);
    const shell = spawn('sh', ['-c', `${claude} & wait`], { stdio: 'ignore' });
    children.push(shell);
    const tree = newTree();
    const found = await untilValue(
      () => agentOfTree(tree.walk(shell.pid!)),
      (f) => f !== undefined,
      2000,
    );
    expect(found?.agent).toBe('claude');
    expect(found?.pid).not.toBe(shell.pid);
    expect(tree.walk(shell.pid!)[0]!.pid).toBe(shell.pid);
    // Its command line names the script (`/usr/bin/env node …claude` before env execs node, `node …claude`
    // after); read while the process execs, it is empty for a moment (seen under load in CI): read again.
    const named = async (): Promise<boolean> => {
      await tree.refresh();
      return tree.walk(shell.pid!).some((p) => p.argv.includes(claude));
    };
    expect(await until(named, 2000)).toBe(true);
    process.kill(found!.pid, 'SIGKILL');
    const gone = async (): Promise<boolean> => {
      await tree.refresh();
      return agentOfTree(tree.walk(shell.pid!)) === undefined;
    };
    expect(await until(gone, 3000)).toBe(true);
  });

  it('sees a process that execs another program in its place (same pid, same start time)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-proc-'));
    const claude = path.join(dir, 'claude');
    writeFileSync(claude, '#!/usr/bin/env node\nsetInterval(() => {}, 1000);\n');
    chmodSync(claude, 0o755);
    const shell = spawn('sh', ['-c', `read go; exec ${claude}`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(shell);
    const tree = newTree();
    // The shell alone once it runs (not the fork that execs it).
    await until(async () => {
      await tree.refresh();
      return tree.walk(shell.pid!)[0]?.argv.join(' ').includes('read go') === true;
    }, 3000);
    // The shell alone (`sh`; ps names it by its executable, `dash` on Debian).
    expect(tree.walk(shell.pid!).map((p) => p.pid)).toEqual([shell.pid]);
    expect(agentOfTree(tree.walk(shell.pid!))).toBeUndefined();
    shell.stdin!.write('\n');
    const found = await untilValue(
      () => agentOfTree(tree.walk(shell.pid!)),
      (f) => f?.agent === 'claude',
      2000,
    );
    expect(found).toMatchObject({ agent: 'claude', pid: shell.pid });
  });

  it('a pid that is gone is an empty tree', async () => {
    const tree = newTree();
    await tree.refresh();
    expect(tree.walk(2 ** 22 + 12345)).toEqual([]);
  });

  it("a process's folder, start time and open files", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-proc-'));
    const held = path.join(dir, 'held.jsonl');
    writeFileSync(held, '');
    const child = spawn(
      'node',
      ['-e', `require('fs').openSync(${JSON.stringify(held)}, 'r'); setInterval(() => {}, 1000)`],
      { cwd: dir, stdio: 'ignore' },
    );
    children.push(child);
    const started = Date.now();
    const tree = newTree();
    let cwd: string | undefined;
    let files: string[] = [];
    await until(async () => {
      await tree.refresh();
      cwd = tree.cwd(child.pid!);
      files = tree.openFiles(child.pid!);
      return cwd === dir && files.includes(held);
    }, 5000);
    expect(cwd).toBe(dir);
    expect(files).toContain(held);
    expect(Math.abs(tree.startMs(child.pid!)! - started)).toBeLessThan(3000);
  });
});

describe('the portable source, told what ps-list and lsof print', () => {
  it('builds the tree from the list, splits command lines, reads lsof -F n', async () => {
    const list = async (): Promise<ProcessDescriptor[]> => [
      { pid: 10, ppid: 1, name: 'zsh', cmd: '-zsh' },
      {
        pid: 11,
        ppid: 10,
        name: 'node',
        cmd: 'node /opt/homebrew/lib/node_modules/@anthropic-ai/claude-code/cli.js --resume x',
        path: '/opt/homebrew/bin/node',
        startTime: new Date(5000),
      },
      { pid: 12, ppid: 11, name: 'rg', cmd: 'rg foo' },
      { pid: 20, ppid: 1, name: 'other', cmd: 'other' },
    ];
    const asked: string[][] = [];
    const tree = new PsTree(list, async (args) => {
      asked.push(args);
      return args.includes('cwd')
        ? 'p11\nfcwd\nn/Users/dev/proj\n'
        : 'p11\nf3\nn/Users/dev/.claude/projects/x.jsonl\nf4\nnpipe\n';
    });
    await tree.refresh();
    expect(tree.walk(10).map((p) => p.pid)).toEqual([10, 11, 12]);
    expect(agentOfTree(tree.walk(10))).toMatchObject({ agent: 'claude', pid: 11 });
    expect(tree.startMs(11)).toBe(5000);
    // Folders and files come from lsof in the background: asked once, known at the next question.
    expect(tree.cwd(11)).toBeUndefined();
    // The fake lsof answers within a tick.
    await elapse(10);
    expect(tree.cwd(11)).toBe('/Users/dev/proj');
    tree.openFiles(11);
    await elapse(10);
    expect(tree.openFiles(11)).toEqual(['/Users/dev/.claude/projects/x.jsonl']);
    expect(asked).toEqual([
      ['-a', '-p', '11', '-d', 'cwd', '-Fn'],
      ['-p', '11', '-Fn'],
    ]);
    expect(lsofNames('p1\nn/a\nn/b c\n')).toEqual(['/a', '/b c']);
  });

  it('a list that fails keeps the last one; MADOHUB_PROCESS_SOURCE=ps chooses it', async () => {
    let fail = false;
    const tree = new PsTree(async () => {
      if (fail) throw new Error('ps: not found');
      return [{ pid: 5, ppid: 1, name: 'sh', cmd: 'sh' }];
    });
    await tree.refresh();
    fail = true;
    await tree.refresh();
    expect(tree.walk(5).map((p) => p.comm)).toEqual(['sh']);
    expect(sourceKind({ MADOHUB_PROCESS_SOURCE: 'ps' })).toBe('ps');
    expect(sourceKind({})).toBe('proc');
  });
});

describe('the process tree read from /proc, a process that execs', () => {
  // A terminal's agent is found by a walk; an agent started as `#!/usr/bin/env node` is first the
  // forked parent (named like it, with its command line), then env, then node — and a walk under load
  // may see only the first and the last, both named `node`, with the same start time.
  const writeProc = (root: string, pid: number, name: string, argv: string[]): void => {
    const dir = path.join(root, String(pid));
    mkdirSync(dir, { recursive: true });
    const fields = ['S', '1', String(pid), ...Array.from({ length: 16 }, () => '0'), '4242'];
    writeFileSync(path.join(dir, 'stat'), `${pid} (${name}) ${fields.join(' ')}`);
    writeFileSync(path.join(dir, 'comm'), `${name}\n`);
    writeFileSync(path.join(dir, 'cmdline'), `${argv.join('\0')}\0`);
    mkdirSync(path.join(dir, 'task', String(pid)), { recursive: true });
    writeFileSync(path.join(dir, 'task', String(pid), 'children'), '');
  };
  it('reads its new command line, though its name and start time stay (a fork of node that execs node)', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'madohub-fakeproc-'));
    const tree = new ProcessTree(root);
    writeProc(root, 77, 'node', ['/usr/bin/node', '/x/mado-host.js']);
    expect(agentOfTree(tree.walk(77))).toBeUndefined();
    writeProc(root, 77, 'node', ['node', '/x/bin/pi']);
    expect(tree.walk(77)[0]!.argv).toEqual(['node', '/x/bin/pi']);
    expect(agentOfTree(tree.walk(77))).toEqual({ agent: 'pi', pid: 77 });
  });
});
