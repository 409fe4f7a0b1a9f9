// What watches a terminal's process tree: an agent that quits to its shell has left; a terminal
// whose own program has ended has no agent leave it (its exit is on its way, and shows the agent),
// and once it has exited it is still where it ran.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TerminalWatchers } from '../../../src/state/terminal-watchers.js';
import type { AgentId } from '../../../src/shared/types.js';
import { until } from '../../helpers/wait.js';

const quiet = { debug: () => undefined };

describe('a terminal’s process tree', () => {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) await s();
  });

  it('a terminal whose program (the agent itself) ended tells no agent leaving', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-watchers-'));
    // A program named claude (its comm and argv[0]): the agent the terminal runs, as `:terminal claude`.
    const claude = path.join(dir, 'claude');
    copyFileSync('/bin/sleep', claude);
    const child = spawn(claude, ['30'], { stdio: 'ignore', cwd: process.cwd() });
    const told: (AgentId | null)[] = [];
    const watchers = new TerminalWatchers(
      { process: (_buf, agent) => told.push(agent), record: () => undefined },
      quiet,
      { HOME: dir },
    );
    stops.push(async () => {
      child.kill('SIGKILL');
      await watchers.close();
    });
    await new Promise((r) => child.once('spawn', r));
    watchers.screen(7, child.pid, Date.now(), false);
    expect(told).toEqual(['claude']);
    // The agent ends (and is reaped, as Neovim reaps a terminal's job); then a screen ("[Process exited 0]").
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await gone;
    watchers.scan(7, Date.now());
    expect(told).toEqual(['claude']);
    // Its exit: the terminal is still where it ran, so that its row keeps its name ("claude proj").
    watchers.end(7);
    expect(watchers.placeOf(7).cwd).toBe(process.cwd());
    expect(watchers.sessionOf(7)).toMatchObject({ agent: 'claude' });
    watchers.forget(7);
    expect(watchers.placeOf(7).cwd).toBe('');
  });

  it('an agent that quits to the shell it ran in has left', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-watchers-'));
    const claude = path.join(dir, 'claude');
    copyFileSync('/bin/sleep', claude);
    // A shell that runs the agent, then stays.
    const shell = spawn('/bin/sh', ['-c', `"${claude}" 30; sleep 30`], { stdio: 'ignore' });
    const told: (AgentId | null)[] = [];
    const watchers = new TerminalWatchers(
      { process: (_buf, agent) => told.push(agent), record: () => undefined },
      quiet,
      { HOME: dir },
    );
    stops.push(async () => {
      shell.kill('SIGKILL');
      await watchers.close();
    });
    watchers.screen(8, shell.pid, Date.now(), false);
    // Scanned until the shell has started the agent.
    await until(() => {
      watchers.scan(8, Date.now());
      return told.at(-1) === 'claude';
    }, 3000);
    expect(told.at(-1)).toBe('claude');
    const agent = Number(readFileSync(`/proc/${shell.pid}/task/${shell.pid}/children`, 'utf8').trim().split(' ')[0]);
    process.kill(agent, 'SIGTERM');
    await until(() => {
      watchers.scan(8, Date.now());
      return told.at(-1) === null;
    }, 3000);
    expect(told.at(-1)).toBeNull();
  });
});
