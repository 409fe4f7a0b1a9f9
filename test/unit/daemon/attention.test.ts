import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DaemonAttention } from '../../../src/daemon/attention.js';
import type { ListedJob } from '../../../src/jobs/protocol/replies.js';
import { blankJob } from '../../../src/jobs/store.js';
import { DEFAULT_NOTIFY, NOTIFY_FILE, readNotifyFile, writeNotifyFile } from '../../../src/fleet/notify-settings.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'madohub-daemon-attention-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('the daemon’s notification settings', () => {
  it('a half-written notify.json is kept aside and said once; the settings read before stay in use', () => {
    // The last Neovim kept: no desktop notifications.
    writeNotifyFile(dir, { ...DEFAULT_NOTIFY, desktop: { enabled: false, command: null } }, new Map(), () => undefined);
    const said: string[] = [];
    // No notifier on PATH: with the defaults (desktop on), the daemon would say it has none.
    const daemon = new DaemonAttention(dir, path.join(dir, 'editors'), (m) => said.push(m), { PATH: '' });
    daemon.jobs([]);
    expect(said).toEqual([]);
    writeFileSync(path.join(dir, NOTIFY_FILE), '{ "enabled": tr');
    daemon.jobs([]);
    daemon.jobs([]);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(
      /^notifications: notify\.json could not be read \(not a JSON object \(cut short\?\)\): kept aside as .*notify\.json\.bad-\d+; the settings read before are kept$/,
    );
    expect(existsSync(path.join(dir, NOTIFY_FILE))).toBe(false);
    expect(readdirSync(dir).filter((n) => n.startsWith(`${NOTIFY_FILE}.bad-`))).toHaveLength(1);
    // A good file again is read.
    writeNotifyFile(dir, DEFAULT_NOTIFY, new Map(), () => undefined);
    daemon.jobs([]);
    expect(said.slice(1)).toEqual([
      'notifications: no desktop notifier: notify-send (Debian, Ubuntu: apt install libnotify-bin) is not on PATH',
    ]);
    daemon.stop();
  });

  it('readNotifyFile: none is the defaults, said by nothing; a file that is no settings is a problem', () => {
    expect(readNotifyFile(dir).problem).toBeUndefined();
    writeFileSync(path.join(dir, NOTIFY_FILE), '[1, 2]');
    expect(readNotifyFile(dir).problem).toMatch(
      /^notify\.json could not be read \(not a JSON object \(cut short\?\)\): kept aside as /,
    );
  });
});

describe('the daemon’s memory of jobs', () => {
  const listed = (short: string): ListedJob => ({ ...blankJob(short, 1), alive: true });

  it('forgets a job no longer listed (its memory grew by each job ever run); a host’s while its link is down, not', () => {
    const daemon = new DaemonAttention(dir, path.join(dir, 'editors'), () => undefined, { PATH: '' });
    daemon.jobs(['0000000a', '0000000b', '0000000c'].map((s) => listed(s)));
    expect(daemon.remembered).toBe(3);
    daemon.jobs([listed('0000000c')]);
    expect(daemon.remembered).toBe(1);
    daemon.remoteJobs('box', [listed('0000000d'), listed('0000000e')]);
    expect(daemon.remembered).toBe(3);
    // The link drops: what its jobs do meanwhile is news when it is back.
    daemon.remoteJobs('box', undefined);
    expect(daemon.remembered).toBe(3);
    // Back, one of them removed meanwhile: forgotten.
    daemon.remoteJobs('box', [listed('0000000e')]);
    expect(daemon.remembered).toBe(2);
    daemon.jobs([]);
    daemon.remoteJobs('box', []);
    expect(daemon.remembered).toBe(0);
    daemon.stop();
  });
});
