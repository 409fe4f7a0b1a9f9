import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderEach } from '../../helpers/files.js';
import type { Mute } from '../../../src/fleet/attention.js';
import {
  DEFAULT_NOTIFY,
  NOTIFY_FILE,
  parseNotifySettings,
  readNotifyFile,
  writeNotifyFile,
} from '../../../src/fleet/notify-settings.js';

const folder = folderEach('madohub-notify-settings-');

describe('the user’s notify settings', () => {
  it('none: the defaults, nothing said', () => {
    expect(parseNotifySettings(undefined)).toEqual({ settings: DEFAULT_NOTIFY, problems: [] });
    expect(parseNotifySettings({})).toMatchObject({
      settings: { terminal: { osc: 'auto', bell: false, title: false }, desktop: { enabled: true, command: null } },
      problems: [],
    });
  });

  it('each field read as given', () => {
    const { settings, problems } = parseNotifySettings(
      {
        enabled: true,
        states: { waiting: true, completed: false },
        burst_ms: 500,
        quiet: { from: '22:00', to: '08:00' },
        desktop: { enabled: false, command: ['my-notify', '{title}'] },
        terminal: { osc: 777, bell: true, title: true },
      },
      { waiting: 'Needs you' },
    );
    expect(problems).toEqual([]);
    expect(settings).toEqual({
      attention: {
        enabled: true,
        states: { waiting: true, completed: false },
        words: { waiting: 'Needs you' },
        burstMs: 500,
        quiet: { from: 22 * 60, to: 8 * 60 },
      },
      desktop: { enabled: false, command: ['my-notify', '{title}'] },
      terminal: { osc: '777', bell: true, title: true },
    });
  });

  it('a wrong field is said, and its default kept', () => {
    const { settings, problems } = parseNotifySettings({
      enabled: 'yes',
      states: { sleeping: true },
      burst_ms: -1,
      quiet: { from: '25:00', to: '8' },
      desktop: { command: 'notify-send' },
      terminal: { osc: 52, bell: 1 },
    });
    expect(problems).toEqual([
      'notify.states.sleeping: not a state set to true or false',
      'notify.burst_ms must be a number of ms from 0 to 60000',
      "notify.quiet must be { from = 'HH:MM', to = 'HH:MM' }",
      "notify.desktop.command must be a list of strings, its program first (e.g. { 'notify-send' })",
      "notify.terminal.osc must be 'auto', 9, 777, 99 or false",
      'notify.enabled must be true or false',
      'notify.terminal.bell must be true or false',
    ]);
    expect(settings.attention.enabled).toBe(true);
    expect(settings.attention.burstMs).toBe(2000);
    expect(settings.attention.quiet).toBeNull();
    expect(settings.desktop.command).toBeNull();
    expect(settings.terminal).toEqual({ osc: 'auto', bell: false, title: false });
    expect(parseNotifySettings('loud').problems).toEqual(['notify must be a table']);
    // A command with a NUL, or too long a list, is refused.
    expect(parseNotifySettings({ desktop: { command: ['a\0b'] } }).settings.desktop.command).toBeNull();
    expect(parseNotifySettings({ desktop: { command: Array(33).fill('x') } }).settings.desktop.command).toBeNull();
  });
});

describe('the settings kept for the daemon', () => {
  it('are read back as written, with the mutes of jobs only', () => {
    const { settings } = parseNotifySettings(
      { burst_ms: 700, quiet: { from: '23:30', to: '07:05' }, desktop: { command: ['n'] } },
      { waiting: 'Waits' },
    );
    const mutes = new Map<string, Mute>([
      ['job:1a2b3c4d', 'all'],
      ['job:0000ffff', new Set(['completed', 'stopped'] as const)],
      ['term:3', 'all'],
    ]);
    writeNotifyFile(folder(), settings, mutes, () => undefined);
    const back = readNotifyFile(folder());
    expect(back.settings.attention).toEqual(settings.attention);
    expect(back.settings.desktop).toEqual(settings.desktop);
    expect([...back.mutes.keys()]).toEqual(['job:1a2b3c4d', 'job:0000ffff']);
    expect(back.mutes.get('job:0000ffff')).toEqual(new Set(['completed', 'stopped']));
  });

  it('a hostile file (garbage, a huge one, a FIFO, ids that are not jobs’) gives the defaults and hangs nothing', () => {
    const file = path.join(folder(), NOTIFY_FILE);
    writeFileSync(file, '{not json');
    expect(readNotifyFile(folder()).settings).toEqual(DEFAULT_NOTIFY);
    writeFileSync(file, JSON.stringify({ burst_ms: 5, pad: 'x'.repeat(200_000) }));
    expect(readNotifyFile(folder()).settings).toEqual(DEFAULT_NOTIFY);
    writeFileSync(
      file,
      JSON.stringify({ mutes: { '../../etc': 'all', 'job:1a2b3c4d': ['waiting', 'asleep'], 'job:zzzzzzzz': 'all' } }),
    );
    const { mutes } = readNotifyFile(folder());
    expect([...mutes.keys()]).toEqual(['job:1a2b3c4d']);
    expect(mutes.get('job:1a2b3c4d')).toEqual(new Set(['waiting']));
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(readNotifyFile(folder()).settings).toEqual(DEFAULT_NOTIFY);
  });

  it('a folder that cannot be written costs the daemon its settings, and says why', () => {
    const said: string[] = [];
    writeNotifyFile(path.join(folder(), 'missing', 'deeper'), DEFAULT_NOTIFY, new Map(), (m) => said.push(m));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/^cannot keep the notification settings for the daemon: /);
    expect(() => readFileSync(path.join(folder(), 'missing', 'deeper', NOTIFY_FILE))).toThrow();
  });
});
