import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../../src/records/folders.js';
import type { FolderEvent } from '../../../src/records/folders.js';

const until = async (check: () => boolean, ms = 3000): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
};

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
    await new Promise((r) => setTimeout(r, 80));
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
    await new Promise((r) => setTimeout(r, 150));
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
