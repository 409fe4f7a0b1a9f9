// A turn's checkpoints in the shadow repository and its review: what changed in the folder between the
// turn's start and end, file by file; the user's repository untouched; bounded and hostile input.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readLedger } from '../../../src/review/ledger.js';
import { reviewTurn, unifiedDiff } from '../../../src/review/read.js';
import { Checkpoints, shadowDir } from '../../../src/review/checkpoint.js';

let base: string;
let root: string;
let folder: string;
const env = (): NodeJS.ProcessEnv => ({ ...process.env, HOME: path.join(base, 'home') });
const who = (key = 'job-0000000a', name = 'claude work') => ({ key, agent: 'claude', name, folder });
const write = (rel: string, text: string | Buffer): void => {
  mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
  writeFileSync(path.join(folder, rel), text);
};
const gitIn = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: {
      ...env(),
      GIT_AUTHOR_NAME: 'u',
      GIT_AUTHOR_EMAIL: 'u@x',
      GIT_COMMITTER_NAME: 'u',
      GIT_COMMITTER_EMAIL: 'u@x',
    },
  });

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), 'mado-review-'));
  root = path.join(base, 'state', 'review');
  folder = path.join(base, 'work');
  mkdirSync(path.join(base, 'home'), { recursive: true });
  mkdirSync(folder);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

/** One turn of an agent: the folder at its start, `act` as its work, the folder at its end. */
async function turn(rec: Checkpoints, act: () => void, w = who()): Promise<void> {
  await rec.began(w);
  act();
  await rec.ended(w);
}

describe('a turn checkpointed in a shadow repository', () => {
  it('shows what the turn added, modified, deleted and renamed (and edited), each turn its own change', async () => {
    write('keep.txt', 'one\ntwo\nthree\n');
    write('gone.txt', 'bye\n');
    write('old name.txt', 'a\nb\nc\nd\ne\nf\ng\nh\n');
    const rec = new Checkpoints(root, env());
    await turn(rec, () => {
      write('keep.txt', 'one\nTWO\nthree\n');
      write('new.txt', 'fresh\n');
      write('empty.txt', '');
      rmSync(path.join(folder, 'gone.txt'));
      renameSync(path.join(folder, 'old name.txt'), path.join(folder, 'new name.txt'));
      write('new name.txt', 'a\nb\nc\nd\ne\nf\ng\nH\n');
    });
    await turn(rec, () => write('second.txt', 'two\n'));
    const first = await reviewTurn(root, 'job-0000000a', { turn: 1, contents: true });
    expect(first.files.map((f) => [f.status, f.path, f.oldPath ?? ''])).toEqual([
      ['added', 'empty.txt', ''],
      ['deleted', 'gone.txt', ''],
      ['modified', 'keep.txt', ''],
      ['renamed', 'new name.txt', 'old name.txt'],
      ['added', 'new.txt', ''],
    ]);
    expect(first.files.find((f) => f.path === 'empty.txt')?.note).toBe('empty');
    const keep = first.files[2];
    expect(keep).toMatchObject({ added: 1, removed: 1, before: 'one\ntwo\nthree\n', after: 'one\nTWO\nthree\n' });
    expect(keep?.diff).toMatch(/^diff --git a\/keep.txt b\/keep.txt\n[\s\S]*-two\n\+TWO\n/);
    expect(first.files[1]).toMatchObject({ before: 'bye\n', after: null });
    // The last turn by default: its own change only.
    const last = await reviewTurn(root, 'job-0000000a');
    expect(last).toMatchObject({ turn: 2, first: 1, last: 2, agent: 'claude', name: 'claude work', others: [] });
    expect(last.files.map((f) => f.path)).toEqual(['second.txt']);
    expect(unifiedDiff(last)).toMatch(/^diff --git a\/second.txt b\/second.txt\nnew file mode 100644\n[\s\S]*\+two\n$/);
  });

  it('never touches the user’s repository: no object, ref, index, stash or hook of theirs; its ignores are honoured', async () => {
    write('a.txt', 'a\n');
    write('.gitignore', 'build/\n*.log\n');
    gitIn(folder, 'init', '-q');
    gitIn(folder, 'add', '-A');
    gitIn(folder, 'commit', '-qm', 'first');
    mkdirSync(path.join(folder, '.git', 'hooks'), { recursive: true });
    writeFileSync(path.join(folder, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\ntouch "$HOME/hook-ran"\n', {
      mode: 0o755,
    });
    writeFileSync(path.join(folder, '.git', 'info', 'exclude'), 'secret.env\n');
    write('staged.txt', 'staged\n');
    gitIn(folder, 'add', 'staged.txt');
    const snapshot = (): string =>
      [
        gitIn(folder, 'for-each-ref'),
        gitIn(folder, 'ls-files', '-s'),
        gitIn(folder, 'stash', 'list'),
        gitIn(folder, 'count-objects', '-v'),
        readdirSync(path.join(folder, '.git')).sort().join(','),
      ].join('\n');
    // The user's own excludes file, as their git config names it.
    writeFileSync(path.join(base, 'home', '.gitconfig'), '[core]\n\texcludesFile = ~/.my-ignores\n');
    writeFileSync(path.join(base, 'home', '.my-ignores'), '*.secret\n');
    const before = snapshot();
    const indexBefore = readFileSync(path.join(folder, '.git', 'index'));
    const rec = new Checkpoints(root, env());
    await turn(rec, () => {
      write('a.txt', 'A\n');
      write('build/out.o', 'binary-ish');
      write('debug.log', 'log');
      write('secret.env', 'KEY=1');
      write('token.secret', 'shh');
    });
    expect(snapshot()).toBe(before);
    expect(readFileSync(path.join(folder, '.git', 'index')).equals(indexBefore)).toBe(true);
    expect(existsSync(path.join(base, 'home', 'hook-ran'))).toBe(false);
    const r = await reviewTurn(root, 'job-0000000a');
    expect(r.files.map((f) => f.path)).toEqual(['a.txt']);
    // Its repository is its own, under the state folder.
    expect(existsSync(path.join(shadowDir(root, folder), 'HEAD'))).toBe(true);
  });

  it('checkpoints a folder that is no git work tree, and says "no change" of a turn that changed nothing', async () => {
    write('a.txt', 'a\n');
    const rec = new Checkpoints(root, env());
    await turn(rec, () => undefined);
    const r = await reviewTurn(root, 'job-0000000a');
    expect(r.files).toEqual([]);
    expect(r.skipped).toBeUndefined();
    expect(existsSync(path.join(folder, '.git'))).toBe(false);
  });

  it('keeps a file over 1 MiB as its size and hash, a binary file as binary', async () => {
    write('small.bin', Buffer.from([0, 1, 2, 0, 255]));
    const rec = new Checkpoints(root, env());
    await turn(rec, () => {
      write('big.dat', Buffer.alloc(3 * 1024 * 1024, 7));
      write('small.bin', Buffer.from([0, 1, 3, 0, 255]));
    });
    const r = await reviewTurn(root, 'job-0000000a', { contents: true });
    expect(r.files.map((f) => [f.path, f.status, f.note])).toEqual([
      ['big.dat', 'added', 'binary or large'],
      ['small.bin', 'modified', 'binary or large'],
    ]);
    expect(r.files[0]?.diff).toMatch(/binary or large file, 3145728 bytes, sha256 [0-9a-f]{64}/);
    expect(r.files[0]?.after).toBeUndefined();
  });

  it('skips a folder over its bound of files, and a checkpoint over its time, with a word', async () => {
    for (let i = 0; i < 30; i++) write(`f${i}.txt`, `${i}\n`);
    const few = new Checkpoints(root, env(), { largeBytes: 1024 * 1024, maxFiles: 20, timeMs: 2000 });
    await turn(few, () => write('x.txt', 'x\n'));
    expect((await reviewTurn(root, 'job-0000000a')).skipped).toBe('no checkpoint: the folder has over 20 files');
    const slow = new Checkpoints(root, env(), { largeBytes: 1024 * 1024, maxFiles: 20_000, timeMs: 1 });
    await turn(slow, () => write('y.txt', 'y\n'), who('job-0000000b'));
    expect((await reviewTurn(root, 'job-0000000b')).skipped).toMatch(
      /^no checkpoint: the checkpoint took over 0.001 s$/,
    );
  });

  it('an index lock left by a git killed mid-way is dropped once it is older than a checkpoint runs; a fresh one is not', async () => {
    write('a.txt', 'a\n');
    const rec = new Checkpoints(root, env());
    await turn(rec, () => write('a.txt', 'A\n'));
    const lock = path.join(shadowDir(root, realpathSync(folder)), 'madohub', 'job-0000000a.index.lock');
    // A lock of a git still at work (another process's): left alone, the turn says git's word.
    writeFileSync(lock, '');
    await turn(rec, () => write('b.txt', 'b\n'));
    expect((await reviewTurn(root, 'job-0000000a')).skipped).toMatch(/^no checkpoint: .*index\.lock/);
    expect(existsSync(lock)).toBe(true);
    // The same lock a minute later is nobody's: the next turn is checkpointed.
    const old = new Date(Date.now() - 60_000);
    utimesSync(lock, old, old);
    await turn(rec, () => write('c.txt', 'c\n'));
    const r = await reviewTurn(root, 'job-0000000a');
    expect(r.skipped).toBeUndefined();
    expect(r.files.map((f) => [f.path, f.status])).toEqual([['c.txt', 'added']]);
    expect(existsSync(lock)).toBe(false);
  });

  it('keeps the last 50 turns of an agent, and says which are kept', async () => {
    const rec = new Checkpoints(root, env());
    for (let i = 1; i <= 52; i++) await turn(rec, () => write('n.txt', `${i}\n`));
    const ledger = readLedger(shadowDir(root, folder), 'job-0000000a');
    expect(ledger?.turns.map((t) => t.turn)).toEqual(Array.from({ length: 50 }, (_, i) => i + 3));
    await expect(reviewTurn(root, 'job-0000000a', { turn: 2 })).rejects.toThrow('no turn 2 is kept (turns 3–52 are)');
    expect((await reviewTurn(root, 'job-0000000a', { turn: 52 })).files[0]?.diff).toMatch(/-51\n\+52\n/);
    const refs = execFileSync('git', ['--git-dir', shadowDir(root, folder), 'for-each-ref', '--format=%(refname)'], {
      encoding: 'utf8',
    });
    expect(refs).not.toMatch(/\/2\/(start|end)$/m);
    expect(refs).toMatch(/\/3\/start$/m);
  });

  it('says which other agent worked in the same folder during the turn', async () => {
    const rec = new Checkpoints(root, env());
    await rec.began(who());
    await turn(rec, () => write('codex.txt', 'c\n'), who('job-0000000c', 'codex work'));
    write('claude.txt', 'c\n');
    await rec.ended(who());
    const r = await reviewTurn(root, 'job-0000000a');
    expect(r.others).toEqual(['codex work']);
    expect(r.files.map((f) => f.path)).toEqual(['claude.txt', 'codex.txt']);
  });

  it('hostile paths and links: a newline, control bytes and a link planted in the folder are kept as they are, nothing followed', async () => {
    const outside = path.join(base, 'outside.txt');
    writeFileSync(outside, 'outside\n');
    const rec = new Checkpoints(root, env());
    await turn(rec, () => {
      write('line\nbreak.txt', 'x\n');
      write('esc\u001b[2J.txt', 'y\n');
      symlinkSync(outside, path.join(folder, 'link'));
    });
    const r = await reviewTurn(root, 'job-0000000a', { contents: true });
    expect(r.files.map((f) => f.path).sort()).toEqual(['esc\u001b[2J.txt', 'line\nbreak.txt', 'link'].sort());
    expect(r.files.find((f) => f.path === 'link')?.after).toBe(outside);
    expect(readFileSync(outside, 'utf8')).toBe('outside\n');
  });

  it('a folder deleted during the turn: the turn says it has no checkpoint, and nothing throws', async () => {
    write('a.txt', 'a\n');
    const rec = new Checkpoints(root, env());
    await turn(rec, () => rmSync(folder, { recursive: true }));
    expect((await reviewTurn(root, 'job-0000000a')).skipped).toBe('no checkpoint: its folder is gone');
  });

  it('refuses a shadow repository that is a link', async () => {
    const elsewhere = path.join(base, 'elsewhere');
    mkdirSync(elsewhere);
    mkdirSync(root, { recursive: true });
    mkdirSync(path.join(elsewhere, 'madohub'));
    symlinkSync(elsewhere, shadowDir(root, folder));
    const rec = new Checkpoints(root, env());
    await turn(rec, () => write('a.txt', 'a\n'));
    expect(readdirSync(elsewhere)).toEqual(['madohub']);
    expect(readdirSync(path.join(elsewhere, 'madohub'))).toEqual([]);
  });

  it('a git folder with a broken index, and a submodule: checkpointed all the same, the submodule said', async () => {
    write('a.txt', 'a\n');
    gitIn(folder, 'init', '-q');
    gitIn(folder, 'add', '-A');
    gitIn(folder, 'commit', '-qm', 'first');
    writeFileSync(path.join(folder, '.git', 'index'), 'not an index at all');
    const sub = path.join(folder, 'vendor', 'lib');
    mkdirSync(sub, { recursive: true });
    writeFileSync(path.join(sub, 'x.txt'), 'x\n');
    gitIn(sub, 'init', '-q');
    gitIn(sub, 'add', '-A');
    gitIn(sub, 'commit', '-qm', 'lib');
    const rec = new Checkpoints(root, env());
    await turn(rec, () => {
      write('a.txt', 'A\n');
      writeFileSync(path.join(sub, 'x.txt'), 'y\n');
      gitIn(sub, 'commit', '-qam', 'lib 2');
    });
    const r = await reviewTurn(root, 'job-0000000a');
    expect(r.skipped).toBeUndefined();
    expect(r.files.map((f) => [f.path, f.status, f.note ?? ''])).toEqual([
      ['a.txt', 'modified', ''],
      ['vendor/lib', 'modified', 'a submodule'],
    ]);
    // Their index stays as broken as it was: it is not MadoHub's.
    expect(readFileSync(path.join(folder, '.git', 'index'), 'utf8')).toBe('not an index at all');
  });

  it('a turn whose start was not seen begins where the turn before ended (its start kept by a ref of its own); with none before, it says so', async () => {
    const rec = new Checkpoints(root, env());
    await rec.ended(who());
    expect((await reviewTurn(root, 'job-0000000a')).skipped).toBe(
      'no checkpoint of its start (MadoHub came in during it)',
    );
    write('late.txt', 'late\n');
    await rec.ended(who());
    const r = await reviewTurn(root, 'job-0000000a');
    expect([r.turn, r.files.map((f) => f.path)]).toEqual([2, ['late.txt']]);
    const refs = execFileSync('git', ['--git-dir', shadowDir(root, folder), 'for-each-ref', '--format=%(refname)'], {
      encoding: 'utf8',
    });
    expect(refs).toMatch(/\/2\/start$/m);
  });

  it('a 50 MB file is kept as its size and hash; a folder of 100,000 files gets no checkpoint, said, without hashing them', async () => {
    const rec = new Checkpoints(root, env());
    await turn(rec, () => write('huge.bin', Buffer.alloc(50 * 1024 * 1024, 1)));
    expect((await reviewTurn(root, 'job-0000000a')).files.map((f) => [f.path, f.note])).toEqual([
      ['huge.bin', 'binary or large'],
    ]);
    for (let d = 0; d < 100; d++) {
      mkdirSync(path.join(folder, `d${d}`));
      for (let i = 0; i < 1000; i++) writeFileSync(path.join(folder, `d${d}`, `f${i}`), '');
    }
    await turn(rec, () => write('x.txt', 'x\n'));
    expect((await reviewTurn(root, 'job-0000000a')).skipped).toBe('no checkpoint: the folder has over 20,000 files');
  }, 60000);
});
