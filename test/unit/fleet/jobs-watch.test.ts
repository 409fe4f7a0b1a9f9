// The jobs folder as the hub sees it: every job's last write is read, whatever the watcher drops.
import fs, { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import fsp from 'node:fs/promises';
import type { FSWatcher, PathLike } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { JobsWatch, wholeLists } from '../../../src/fleet/jobs-watch.js';
import { newShortId } from '../../../src/jobs/ids.js';
import type { ListedJob } from '../../../src/jobs/protocol/replies.js';
import { blankJob, createJob, updateJob } from '../../../src/jobs/store.js';
import { elapse, until, untilValue } from '../../helpers/wait.js';

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

describe('the jobs watch', () => {
  it('reads a job’s last write when it came just after a change told late in a read’s window (the watcher drops it)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-watch-'));
    let listed: ListedJob[] = [];
    const watch = new JobsWatch(
      dir,
      wholeLists((l) => (listed = l)),
      { debug: () => undefined },
    );
    watch.start();
    stop = async () => {
      await watch.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    // The watch is up (its first read of the empty folder done).
    await elapse(300);
    const missed: string[] = [];
    for (let i = 0; i < 4; i++) {
      const short = newShortId();
      // Made: told at once, read at once and 100 ms later.
      createJob(dir, { ...blankJob(short), intent: 'made' });
      // A change told 85 ms in (the window of the read still open), then one 20 ms later: chokidar
      // tells no second change of a file within 50 ms, and the read at 100 ms came before it.
      await elapse(85);
      await updateJob(dir, short, { intent: 'working' });
      await elapse(20);
      await updateJob(dir, short, { intent: 'idle' });
      // Read within 400 ms of the write, though the watcher told none of it.
      const seen = await untilValue(
        () => listed.find((j) => j.short === short)?.intent,
        (intent) => intent === 'idle',
        400,
      );
      if (seen !== 'idle') missed.push(`${short}: ${seen}`);
    }
    expect(missed).toEqual([]);
  });
});

describe('the jobs watch, started while a job is being made', () => {
  it('follows a job made after chokidar first read the folder and before it watched it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-watch-'));
    const short = newShortId();
    // chokidar reads a folder, then watches it: the job comes in between (as `mado --bg` can make
    // one as a Neovim's Node process comes up), made as the watch on the folder is asked for.
    const realWatch = fs.watch;
    const watchAt = (file: PathLike, ...rest: unknown[]): FSWatcher => {
      if (String(file) === dir && readdirSync(dir).length === 0) createJob(dir, { ...blankJob(short), intent: 'made' });
      return (realWatch as (...a: unknown[]) => FSWatcher)(file, ...rest);
    };
    fs.watch = watchAt as typeof fs.watch;
    syncBuiltinESMExports();
    let listed: ListedJob[] = [];
    const watch = new JobsWatch(
      dir,
      wholeLists((l) => (listed = l)),
      { debug: () => undefined },
    );
    stop = async () => {
      fs.watch = realWatch;
      syncBuiltinESMExports();
      await watch.stop();
      rmSync(dir, { recursive: true, force: true });
    };
    watch.start();
    await until(() => listed.length > 0);
    expect(listed.map((j) => j.intent)).toEqual(['made']);
    // The folder's watch is up once its first listing is in.
    await elapse(300);
    // Its changes from then on are seen.
    await updateJob(dir, short, { intent: 'working' });
    await until(() => listed[0]?.intent === 'working');
    expect(listed.map((j) => j.intent)).toEqual(['working']);
  });
});

/** A watch of a new folder of `count` jobs at `intent`: each job it reads alone goes in `heard`. */
function watchedJobs(count: number, intent: string, before: () => void = () => undefined) {
  const dir = mkdtempSync(path.join(tmpdir(), 'madohub-watch-'));
  const shorts = Array.from({ length: count }, () => newShortId());
  for (const short of shorts) createJob(dir, { ...blankJob(short), intent });
  const seen = { wholeReads: 0, heard: [] as string[], listed: [] as string[] };
  const watch = new JobsWatch(
    dir,
    {
      jobs: (jobs) => {
        seen.wholeReads++;
        seen.listed = jobs.map((j) => `${j.short} ${j.intent}`);
      },
      job: (j) => seen.heard.push(`${j.short} ${j.intent}`),
    },
    { debug: () => undefined },
  );
  stop = async () => {
    before();
    await watch.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  watch.start();
  return { dir, shorts, seen };
}

describe('the jobs watch, a job at work', () => {
  it('reads a job whose file changed alone, each write, not every job of the folder (issue 31)', async () => {
    const { dir, shorts, seen } = watchedJobs(3, 'made');
    const heard = seen.heard;
    // The watch is up and its readings of the folder are over (at once, when ready, a window later).
    await until(() => seen.wholeReads > 0);
    await elapse(300);
    const before = seen.wholeReads;
    const [short] = shorts;
    for (const intent of ['working', 'waiting', 'done']) {
      await updateJob(dir, short!, { intent });
      await until(() => heard.includes(`${short} ${intent}`));
      expect(heard.at(-1)).toBe(`${short} ${intent}`);
    }
    expect(heard.every((h) => h.startsWith(short!))).toBe(true);
    expect(seen.wholeReads).toBe(before);
  });
});

describe('the jobs watch, a working job’s output', () => {
  it('costs no read of its folder at each append to its output log (issue 31)', async () => {
    // Every read of a job folder's entries (chokidar's read of a folder at each change in it).
    const realReaddir = fsp.readdir;
    const folderReads: string[] = [];
    const { dir, shorts, seen } = watchedJobs(2, 'working', () => {
      fsp.readdir = realReaddir;
      syncBuiltinESMExports();
    });
    const counting = (file: PathLike, ...rest: unknown[]): unknown => {
      if (shorts.some((short) => String(file).startsWith(path.join(dir, short)))) folderReads.push(String(file));
      return (realReaddir as (...a: unknown[]) => unknown)(file, ...rest);
    };
    fsp.readdir = counting as typeof fsp.readdir;
    syncBuiltinESMExports();
    await until(() => seen.wholeReads > 0);
    await elapse(300);
    folderReads.length = 0;
    // Frames of its screen, 20 ms apart, for a second and a half.
    const log = path.join(dir, shorts[0]!, 'output.log');
    for (let i = 0; i < 75; i++) {
      appendFileSync(log, `frame ${i}\n`);
      await elapse(20);
    }
    // Its job file's change is still read, alone.
    await updateJob(dir, shorts[0]!, { intent: 'idle' });
    await until(() => seen.heard.includes(`${shorts[0]} idle`));
    expect(folderReads).toEqual([]);
  });
});

describe('the jobs watch, a job folder made again', () => {
  it('follows a job whose folder was removed and made again under the same name at once', async () => {
    const { dir, shorts, seen } = watchedJobs(1, 'made');
    const [short] = shorts;
    await until(() => seen.wholeReads > 0);
    await elapse(300);
    rmSync(path.join(dir, short!), { recursive: true });
    createJob(dir, { ...blankJob(short!), intent: 'again' });
    // Both told, and the folder read again, before its next write.
    expect(await until(() => seen.listed.includes(`${short} again`))).toBe(true);
    await updateJob(dir, short!, { intent: 'working' });
    expect(await until(() => seen.heard.includes(`${short} working`), 3000)).toBe(true);
  });
});
