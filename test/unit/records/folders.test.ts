import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { PathLike } from 'node:fs';
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
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
    // Its next write, a change.
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

  it("hears a file's every write and reads no folder for it (a project folder of hundreds of sessions)", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-folders-'));
    for (let i = 0; i < 200; i++) writeFileSync(path.join(dir, `s${i}.jsonl`), '{}\n');
    const w = new FolderWatcher();
    watchers.push(w);
    const changes: string[] = [];
    w.watch(dir, (file, event) => event === 'change' && changes.push(path.basename(file)));
    await elapse(300);
    // Every read of the folder's entries from now on (chokidar read it again at each change in it).
    const realReaddir = fsp.readdir;
    const reads: string[] = [];
    fsp.readdir = ((file: PathLike, ...rest: unknown[]): unknown => {
      if (String(file).startsWith(dir)) reads.push(String(file));
      return (realReaddir as (...a: unknown[]) => unknown)(file, ...rest);
    }) as typeof fsp.readdir;
    syncBuiltinESMExports();
    try {
      for (let i = 0; i < 40; i++) {
        appendFileSync(path.join(dir, 's7.jsonl'), `{"n":${i}}\n`);
        await elapse(20);
      }
      expect(await until(() => changes.length >= 20)).toBe(true);
      expect(new Set(changes)).toEqual(new Set(['s7.jsonl']));
      expect(reads).toEqual([]);
    } finally {
      fsp.readdir = realReaddir;
      syncBuiltinESMExports();
    }
  });

  it('hears the files of a folder removed and made again at once', async () => {
    const base = mkdtempSync(path.join(tmpdir(), 'madohub-folders-'));
    const dir = path.join(base, 'sessions');
    mkdirSync(dir);
    const w = new FolderWatcher();
    watchers.push(w);
    const events: [string, FolderEvent][] = [];
    w.watch(dir, (file, event) => events.push([path.basename(file), event]));
    expect(await until(() => events.some(([, e]) => e === 'ready'))).toBe(true);
    rmSync(dir, { recursive: true });
    mkdirSync(dir);
    // Watched anew: the new folder's watch is in place (it says so as the first did).
    expect(await until(() => events.filter(([, e]) => e === 'ready').length >= 2)).toBe(true);
    writeFileSync(path.join(dir, 'new.jsonl'), '{}\n');
    expect(await until(() => events.some(([f, e]) => f === 'new.jsonl' && (e === 'add' || e === 'change')))).toBe(true);
  });
});
