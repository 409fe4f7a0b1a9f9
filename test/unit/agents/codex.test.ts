import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  codex,
  codexNotification,
  dayFolder,
  findRollout,
  readMeta,
  resumedSession,
  rolloutOf,
} from '../../../src/agents/codex.js';
import { oscNotification } from '../../../src/detect/osc.js';

function rollout(home: string, name: string, cwd: string, startedAt: number, instructionsBytes = 0): string {
  const dir = dayFolder(home, startedAt);
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `rollout-${name}.jsonl`);
  const meta = {
    timestamp: new Date(startedAt).toISOString(),
    type: 'session_meta',
    payload: {
      id: name,
      timestamp: new Date(startedAt).toISOString(),
      cwd,
      base_instructions: { text: 'x'.repeat(instructionsBytes) },
    },
  };
  writeFileSync(file, `${JSON.stringify(meta)}\n{"type":"event_msg","payload":{"type":"task_started"}}\n`);
  return file;
}

describe('findRollout without an open file: session_meta folder and start time', () => {
  const t0 = Date.parse('2026-11-29T10:00:00Z');
  const me = [process.pid]; // holds no rollout open

  it('two sessions in one folder are not crossed', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-codex-'));
    const first = rollout(home, 'a', '/p', t0 + 500);
    const second = rollout(home, 'b', '/p', t0 + 10_500);
    rollout(home, 'c', '/elsewhere', t0 + 600);
    const claimed = new Set<string>();
    const a = findRollout(home, { pids: me, cwd: '/p', startedAt: t0 }, claimed);
    expect(a).toBe(first);
    claimed.add(a!);
    // The second Codex started later: the first rollout is taken, and started before it anyway.
    expect(findRollout(home, { pids: me, cwd: '/p', startedAt: t0 + 10_000 }, claimed)).toBe(second);
    // A process that started after both has none yet.
    expect(findRollout(home, { pids: me, cwd: '/p', startedAt: t0 + 20_000 }, claimed)).toBeUndefined();
  });

  it('reads a session_meta line of any length (instructions inline)', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-codex-'));
    const file = rollout(home, 'big', '/p', t0, 300_000);
    expect(readMeta(file)).toMatchObject({ sessionId: 'big', cwd: '/p', startedAt: t0 });
  });

  it('a FIFO named like a rollout is refused at once, not waited on', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-codex-'));
    const real = rollout(home, 'real', '/p', t0 + 500);
    const fifo = path.join(path.dirname(real), 'rollout-fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    expect(readMeta(fifo)).toBeUndefined();
    expect(findRollout(home, { pids: me, cwd: '/p', startedAt: t0 }, new Set())).toBe(real);
  });

  it('a rollout the process holds open wins', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-codex-'));
    const open = rollout(home, 'open', '/other', t0 - 99_000);
    // This test process holds it open: /proc/<pid>/fd shows it.
    const fd = openSync(open, 'r');
    try {
      expect(findRollout(home, { pids: me, cwd: '/p', startedAt: t0 }, new Set())).toBe(open);
    } finally {
      closeSync(fd);
    }
  });
});

describe('a resumed session (codex [options] resume ID): its own rollout, older than the process, that no process of it holds', () => {
  const t0 = Date.parse('2026-11-29T10:00:00Z');
  const id = '01a243c1-54b5-7002-811a-865629f86b3b';
  it('is named by its arguments, options before the subcommand too', () => {
    expect(resumedSession(['codex', '-c', 'a=b', 'resume', id])).toBe(id);
    expect(resumedSession(['codex', 'resume', '--last'])).toBeUndefined();
    expect(resumedSession(['codex', 'resume', '../../etc/passwd'])).toBeUndefined();
    expect(resumedSession(['codex'])).toBeUndefined();
  });
  it('is found by its id in an earlier day, newest first; claimed, it is not taken twice', () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-codex-'));
    const old = rollout(home, `2026-11-20T09-00-00-${id}`, '/p', Date.parse('2026-11-20T09:00:00Z'));
    rollout(home, 'other', '/p', t0 + 500);
    expect(rolloutOf(home, id)).toBe(old);
    // The process started long after its session: found by the id, not by the start time.
    expect(findRollout(home, { pids: [process.pid], cwd: '/p', startedAt: t0 + 60_000 }, new Set(), id)).toBe(old);
    expect(
      findRollout(home, { pids: [process.pid], cwd: '/p', startedAt: t0 + 60_000 }, new Set([old]), id),
    ).toBeUndefined();
    expect(rolloutOf(home, '01a243c1-0000-7002-811a-865629f86b3b')).toBeUndefined();
  });
});

describe("Codex's desktop notifications (OSC 9)", () => {
  const captured = (
    JSON.parse(readFileSync(path.join(__dirname, '../../fixtures/records/codex-osc.json'), 'utf8')) as {
      osc9: string[];
    }
  ).osc9;
  it('reads what 0.171.0 sent: an approval asked waits, a turn ended with its answer', () => {
    expect(captured.map((s) => codexNotification(oscNotification(s)!))).toEqual([
      { state: 'waiting', detail: 'touch mock-ran.txt' },
      { state: 'completed', detail: 'Done: ran it.' },
      { state: 'completed', detail: 'Done: ran it.' },
    ]);
    expect(codexNotification({ osc: 9, title: '', body: '   ' })).toBeUndefined();
  });
  it("a job asks for them in its launch, not in the user's config", () => {
    expect(codex.jobNotifications?.args).toEqual([
      '-c',
      'tui.notifications=true',
      '-c',
      'tui.notification_method="osc9"',
    ]);
  });
});
