// What tells a process from a later one with its pid, from /proc and from ps (as on macOS).
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { leadsGroup, orphanedGroupLives, processStamp, sameProcess } from '../../../src/proc/stamp.js';
import { elapse, until } from '../../helpers/wait.js';

describe.each(['proc', 'ps'])('process stamps read from %s', (source) => {
  const before = process.env.MADOHUB_PROCESS_SOURCE;
  afterEach(() => {
    if (before === undefined) delete process.env.MADOHUB_PROCESS_SOURCE;
    else process.env.MADOHUB_PROCESS_SOURCE = before;
  });

  it('a running process has one stamp; once it is gone it has none, and its pid is no longer it', async () => {
    process.env.MADOHUB_PROCESS_SOURCE = source;
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    // Listed (ps's list is made anew every 200 ms; '' is a process alive but not listed yet).
    await until(() => !!processStamp(child.pid!), 3000);
    const stamp = processStamp(child.pid!);
    expect(stamp).toMatch(source === 'proc' ? /^\d+$/ : /\d{4}$/);
    // Read again after ps's list (kept 200 ms) was made anew.
    await elapse(250);
    expect(processStamp(child.pid!)).toBe(stamp);
    expect(sameProcess(child.pid!, stamp!)).toBe(true);
    expect(sameProcess(child.pid!, source === 'proc' ? '1' : 'Thu Jan  1 00:00:01 1970')).toBe(false);
    // A stamp written by a process that read the other source: the pid alone tells.
    expect(sameProcess(child.pid!, source === 'proc' ? 'Mon Nov 30 05:52:52 2026' : '12345')).toBe(true);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await until(() => processStamp(child.pid!) === undefined, 3000);
    expect(processStamp(child.pid!)).toBeUndefined();
    expect(sameProcess(child.pid!, stamp!)).toBe(false);
    expect(processStamp(-1)).toBeUndefined();
  });

  it('a process started in a session of its own leads its group; one that is not does not', async () => {
    process.env.MADOHUB_PROCESS_SOURCE = source;
    const leader = spawn('sleep', ['30'], { stdio: 'ignore', detached: true });
    const member = spawn('sleep', ['30'], { stdio: 'ignore' });
    await until(() => !!processStamp(leader.pid!) && !!processStamp(member.pid!), 3000);
    try {
      expect(leadsGroup(leader.pid!, processStamp(leader.pid!)!)).toBe(true);
      expect(leadsGroup(member.pid!, processStamp(member.pid!)!)).toBe(false);
      expect(orphanedGroupLives(2 ** 22 + 7)).toBe(false);
    } finally {
      leader.kill('SIGKILL');
      member.kill('SIGKILL');
    }
  });
});
