import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentOfProcess, agentOfTree } from '../../src/detect/process.js';
import type { ProcessInfo } from '../../src/detect/process.js';
import { ProcessTree } from '../../src/proc/tree.js';

const proc = (pid: number, comm: string, argv: string[], exe = ''): ProcessInfo => ({ pid, ppid: 1, comm, argv, exe });

describe('agentOfProcess', () => {
  it.each<[string, ProcessInfo, string | undefined]>([
    ['native claude', proc(10, 'claude', ['claude'], '/home/u/.local/share/claude/versions/2.1.200'), 'claude'],
    ['claude.exe under a claude link', proc(10, 'claude.exe', ['/home/u/.local/bin/claude']), 'claude'],
    ['npm claude (node + bin/claude)', proc(10, 'node', ['node', '/usr/lib/node_modules/.bin/claude'], '/usr/bin/node'), 'claude'],
    ['npm claude cli.js', proc(10, 'node', ['node', '/x/node_modules/@anthropic-ai/claude-code/cli.js', '--resume'], '/usr/bin/node'), 'claude'],
    ['codex launcher (node …/bin/codex.js)', proc(10, 'node', ['node', '/x/node_modules/@openai/codex/bin/codex.js'], '/usr/bin/node'), 'codex'],
    ['codex native child', proc(11, 'codex', ['/x/node_modules/@openai/codex-linux-x64/vendor/codex/codex'], '/x/codex'), 'codex'],
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

describe('ProcessTree (the real /proc)', () => {
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
    const tree = new ProcessTree();
    let found;
    for (let i = 0; i < 50 && !found; i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = agentOfTree(tree.walk(shell.pid!));
    }
    expect(found?.agent).toBe('claude');
    expect(found?.pid).not.toBe(shell.pid);
    const procs = tree.walk(shell.pid!);
    expect(procs[0]!.pid).toBe(shell.pid);
    // (Under load the walk may still see `/usr/bin/env node …claude` before env execs node.)
    expect(procs.some((p) => p.argv.includes(claude))).toBe(true);
    process.kill(found!.pid, 'SIGKILL');
    await new Promise((r) => setTimeout(r, 100));
    expect(agentOfTree(tree.walk(shell.pid!))).toBeUndefined();
  });

  it('sees a process that execs another program in its place (same pid, same start time)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-proc-'));
    const claude = path.join(dir, 'claude');
    writeFileSync(claude, '#!/usr/bin/env node\nsetInterval(() => {}, 1000);\n');
    chmodSync(claude, 0o755);
    const shell = spawn('sh', ['-c', `read go; exec ${claude}`], { stdio: ['pipe', 'ignore', 'ignore'] });
    children.push(shell);
    const tree = new ProcessTree();
    await new Promise((r) => setTimeout(r, 100));
    expect(tree.walk(shell.pid!).map((p) => p.comm)).toEqual(['sh']);
    shell.stdin!.write('\n');
    let found;
    for (let i = 0; i < 100 && found?.agent !== 'claude'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      found = agentOfTree(tree.walk(shell.pid!));
    }
    expect(found).toMatchObject({ agent: 'claude', pid: shell.pid });
  });

  it('a pid that is gone is an empty tree', () => {
    expect(new ProcessTree().walk(2 ** 22 + 12345)).toEqual([]);
  });
});
