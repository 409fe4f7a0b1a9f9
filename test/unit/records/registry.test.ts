// A follower of a pid's registry file: the records it names are followed, one at a time; a registry
// file that is a FIFO, too large or not this process's names nothing.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FolderWatcher } from '../../../src/records/folders.js';
import { RegistryRecords } from '../../../src/records/registry.js';
import type { RegistrySpec } from '../../../src/records/registry.js';
import type { RecordSignal } from '../../../src/shared/types.js';
import { holds, until } from '../../helpers/wait.js';

/** A registry `{pid, session}` naming `<dir>/<session>.jsonl`; each record `{state}` is one signal. */
function spec(dir: string, pid: number): RegistrySpec {
  return {
    registryFile: path.join(dir, 'sessions', `${pid}.json`),
    entryOf: (v) => {
      const e = v as { pid?: unknown; session?: unknown };
      if (e.pid !== pid || typeof e.session !== 'string') return undefined;
      return { sessionId: e.session, recordFile: path.join(dir, `${e.session}.jsonl`) };
    },
    interpret: (r) => ({ state: (r as { state: RecordSignal['state'] }).state, source: 'jsonl-watcher', detail: '' }),
    label: `test pid ${pid}`,
  };
}

describe('RegistryRecords', () => {
  const folders = new FolderWatcher();
  const followers: RegistryRecords[] = [];
  afterEach(async () => {
    for (const f of followers.splice(0)) f.stop();
    await folders.close();
  });

  const start = (dir: string, pid: number, got: RecordSignal[]): RegistryRecords => {
    const f = new RegistryRecords(spec(dir, pid), folders, (s) => got.push(s), { debug: () => undefined });
    followers.push(f);
    f.start();
    return f;
  };

  it('follows the file the registry names, and the next one it names', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-registry-'));
    mkdirSync(path.join(dir, 'sessions'));
    const got: RecordSignal[] = [];
    const f = start(dir, 7, got);
    writeFileSync(path.join(dir, 'one.jsonl'), '');
    writeFileSync(path.join(dir, 'sessions', '7.json'), JSON.stringify({ pid: 7, session: 'one' }));
    expect(await until(() => f.recordFile === path.join(dir, 'one.jsonl'))).toBe(true);
    expect(f.sessionId).toBe('one');
    appendFileSync(path.join(dir, 'one.jsonl'), '{"state":"working"}\n');
    expect(await until(() => got.at(-1)?.state === 'working')).toBe(true);
    writeFileSync(path.join(dir, 'two.jsonl'), '');
    writeFileSync(path.join(dir, 'sessions', '7.json'), JSON.stringify({ pid: 7, session: 'two' }));
    expect(await until(() => f.recordFile === path.join(dir, 'two.jsonl'))).toBe(true);
    appendFileSync(path.join(dir, 'two.jsonl'), '{"state":"completed"}\n');
    expect(await until(() => got.at(-1)?.state === 'completed')).toBe(true);
    // The first file is followed no longer.
    const count = got.length;
    appendFileSync(path.join(dir, 'one.jsonl'), '{"state":"failed"}\n');
    expect(await holds(() => got.length === count, 300)).toBe(true);
  });

  it('a registry file that is a FIFO, too large, not JSON or another process’s names nothing, and nothing hangs', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-registry-'));
    mkdirSync(path.join(dir, 'sessions'));
    execFileSync('mkfifo', [path.join(dir, 'sessions', '8.json')]);
    writeFileSync(path.join(dir, 'sessions', '9.json'), `{"pid":9,"session":"big","pad":"${'x'.repeat(100_000)}"}`);
    writeFileSync(path.join(dir, 'sessions', '10.json'), '{"pid":10,');
    writeFileSync(path.join(dir, 'sessions', '11.json'), JSON.stringify({ pid: 99, session: 'other' }));
    const got: RecordSignal[] = [];
    const all = [8, 9, 10, 11].map((pid) => start(dir, pid, got));
    const none = (): boolean =>
      all.every((f) => {
        f.poke();
        return f.recordFile === undefined && f.sessionId === undefined;
      });
    expect(await holds(none, 400)).toBe(true);
    for (const f of all) {
      f.poke();
      expect(f.recordFile).toBeUndefined();
      expect(f.sessionId).toBeUndefined();
    }
    // Once the file is mended, it is read.
    rmSync(path.join(dir, 'sessions', '10.json'));
    writeFileSync(path.join(dir, 'sessions', '10.json'), JSON.stringify({ pid: 10, session: 'ten' }));
    expect(await until(() => all[2]!.sessionId === 'ten')).toBe(true);
  });
});
