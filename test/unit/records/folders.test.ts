import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../../src/records/folders.js';
import type { FolderEvent } from '../../../src/records/folders.js';
import { elapse, until } from '../../helpers/wait.js';

describe('FolderWatcher', () => {
  const watchers: FolderWatcher[] = [];
  afterEach(async () => {
    await Promise.all(watchers.map((w) => w.close()));
  });

  it('hears files added and changed in a folder', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-folders-'));
    const w = new FolderWatcher();
    watchers.push(w);
    const events: [string, FolderEvent][] = [];
    w.watch(dir, (file, event) => events.push([path.basename(file), event]));
    expect(await until(() => events.some(([, e]) => e === 'ready'))).toBe(true);
    writeFileSync(path.join(dir, 'a.jsonl'), '1\n');
    expect(await until(() => events.some(([f, e]) => f === 'a.jsonl' && e === 'add'))).toBe(true);
    // The watcher drops a change within 50 ms of the add before it: this one comes later.
    await elapse(80);
    appendFileSync(path.join(dir, 'a.jsonl'), '2\n');
    expect(await until(() => events.some(([f, e]) => f === 'a.jsonl' && e === 'change'))).toBe(true);
  });

  it('waits for a folder that does not exist yet, two levels down', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-folders-'));
    const dir = path.join(base, 'projects', '-home-dev-proj');
    const w = new FolderWatcher();
    watchers.push(w);
    const events: FolderEvent[] = [];
    w.watch(dir, (_file, event) => events.push(event));
    // The folder appears once its ancestor is watched (had it come before, the watch's first look finds it).
    await elapse(150);
    mkdirSync(dir, { recursive: true });
    expect(await until(() => events.includes('ready'))).toBe(true);
    writeFileSync(path.join(dir, 's.jsonl'), '{}\n');
    expect(await until(() => events.includes('add'))).toBe(true);
  });

  it('shares one watcher per folder and closes it with the last listener', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-folders-'));
    const w = new FolderWatcher();
    watchers.push(w);
    const stopA = w.watch(dir, () => {});
    const stopB = w.watch(dir, () => {});
    expect(w.size).toBe(1);
    stopA();
    expect(w.size).toBe(1);
    stopB();
    expect(w.size).toBe(0);
  });
});
