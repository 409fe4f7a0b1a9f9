// Checkpoints of an agent's folder at each turn's start and end, in a shadow git repository of MadoHub's own
// (`<state>/review/<folder's hash>.git`, the folder as its work tree): the change of a turn is the
// difference of its two trees. The user's repository is never touched (no object, ref, index, stash or
// hook of theirs); a folder that is no git work tree is checkpointed the same. Bounded: a file over 1 MiB
// is kept as its size and hash; a folder over 20,000 files or a checkpoint over 2 s is skipped with a word.
// One agent's checkpoints are taken one after the other and never block the caller (all is child processes).
import { createHash } from 'node:crypto';
import { createReadStream, lstatSync, mkdirSync, readdirSync, realpathSync, unlinkSync } from 'node:fs';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { readBounded, writeReplacing } from '../shared/files.js';
import { safeText } from '../shared/text.js';
import { GIT_END_GRACE_MS, git, gitOk, gitProblem, userGit } from './git.js';
import type { GitPlace } from './git.js';
import { KEPT_TURNS, REVIEW_KEY, readLedger, writeLedger } from './ledger.js';
import type { Ledger, LedgerTurn } from './ledger.js';

/** The bounds of a checkpoint. */
export interface CheckpointBounds {
  /** A file larger is kept as its size and hash only. */
  largeBytes: number;
  /** A folder with more files gets no checkpoint. */
  maxFiles: number;
  /** A checkpoint taking longer is given up. */
  timeMs: number;
}

export const CHECKPOINT_BOUNDS: CheckpointBounds = { largeBytes: 1024 * 1024, maxFiles: 20_000, timeMs: 2000 };

/** Unreachable objects are pruned once every so many turns of an agent. */
const PRUNE_EVERY = 10;

/** What a checkpoint holds in place of a large file's bytes (a review shows "binary or large"). */
export const LARGE_STUB = 'madohub: binary or large file,';

/** Whose checkpoint: its key in the review, its agent and name (for the others' word), its folder. */
export interface CheckpointOwner {
  key: string;
  agent: string;
  name: string;
  folder: string;
}

/** The shadow repository of a folder, under the review's folder. */
export function shadowDir(root: string, folder: string): string {
  return path.join(root, `${createHash('sha256').update(folder).digest('hex').slice(0, 24)}.git`);
}

/**
 * The user's own excludes file as their git config names it (`core.excludesFile`), else undefined (git's
 * default, `$XDG_CONFIG_HOME/git/ignore`, is read by the shadow git all the same). Asked once, bounded.
 */
export async function userExcludes(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const r = await userGit(['config', '--global', '--type=path', '--get', 'core.excludesFile'], env);
  const file = r.code === 0 && !r.cut ? r.stdout.toString('utf8').trim() : '';
  try {
    return path.isAbsolute(file) && lstatSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** Makes a folder of MadoHub's own, refusing one that is a link or not a folder. */
function ownFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!lstatSync(dir).isDirectory()) throw new Error(`${dir} is not a folder of MadoHub's own (a link?)`);
}

/** A folder's real path (links resolved), or as given when it is gone. */
function realFolder(folder: string): string {
  try {
    return realpathSync(folder);
  } catch {
    return path.resolve(folder);
  }
}

function isFolder(dir: string): boolean {
  try {
    return lstatSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** The folder's own `.git/info/exclude`, when it is the top of a git work tree (bounded), else ''. */
function folderExcludes(folder: string): string {
  const read = readBounded(path.join(folder, '.git', 'info', 'exclude'), 64 * 1024);
  return read.ok ? read.text : '';
}

/**
 * Removes an index's lock left by a git that could not remove it (killed, or its process gone with the
 * machine): older than `maxAgeMs`, the longest a checkpoint's git runs, it is nobody's. Else every later
 * `git add` on that index fails, and the agent's turns are never reviewable again.
 */
function dropStaleLock(lock: string, maxAgeMs: number): void {
  try {
    if (Date.now() - lstatSync(lock).mtimeMs > maxAgeMs) unlinkSync(lock);
  } catch {
    // None (the usual case), or one that cannot go: git's own word tells it.
  }
}

/** A large file as a checkpoint keeps it: its size and sha256, streamed within the checkpoint's time. */
async function largeStub(file: string, size: number, signal: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { signal })) hash.update(chunk);
  return `${LARGE_STUB} ${size} bytes, sha256 ${hash.digest('hex')}\n`;
}

/** How many files differ between two of a repository's trees (renames as one), or null. */
async function changedFiles(gitDir: string, from: string, to: string): Promise<number | null> {
  const r = await git({ gitDir }, ['diff', '--name-only', '-z', '-M', from, to]);
  return r.code === 0
    ? r.stdout
        .toString('utf8')
        .split('\0')
        .filter((p) => p !== '').length
    : null;
}

/** Takes checkpoints of folders, one agent's in turn; each one's trouble becomes its turn's `skipped` word. */
export class Checkpoints {
  private readonly queues = new Map<string, Promise<unknown>>();
  /** The user's excludes file, asked of their git config once (when first needed). */
  private excludesFile: Promise<string | undefined> | undefined;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    /** The review's folder: the shadow repositories under it. */
    private readonly root: string,
    env: NodeJS.ProcessEnv,
    private readonly bounds: CheckpointBounds = CHECKPOINT_BOUNDS,
    private readonly now: () => number = Date.now,
  ) {
    this.env = env;
  }

  private async excludes(): Promise<{ excludesFile?: string }> {
    this.excludesFile ??= userExcludes(this.env);
    const file = await this.excludesFile;
    return file ? { excludesFile: file } : {};
  }

  /** A turn began (its agent worked): a checkpoint of the folder is its start. */
  began(who: CheckpointOwner): Promise<void> {
    return this.queue(who.key, () => this.checkpoint(who, 'start')).then(() => undefined);
  }

  /**
   * A turn ended (or failed): a checkpoint of the folder is its end. Answers how many files the turn
   * changed (its row says so until the user has seen it), or null when that is not known.
   */
  ended(who: CheckpointOwner): Promise<number | null> {
    return this.queue(who.key, () => this.checkpoint(who, 'end'));
  }

  /**
   * Someone worked in the folder without turns of their own (the user saved a file from Neovim): a
   * moment in their ledger, so that a turn it falls in names them. Only in a folder that has checkpoints.
   */
  touched(who: CheckpointOwner): Promise<void> {
    const moment = async (): Promise<void> => {
      const gitDir = shadowDir(this.root, realFolder(who.folder));
      if (!isFolder(path.join(gitDir, 'madohub'))) return;
      const ledger = readLedger(gitDir, who.key) ?? { ...who, folder: realFolder(who.folder), at: 0, turns: [] };
      const at = this.now();
      ledger.at = at;
      ledger.turns.push({ turn: (ledger.turns.at(-1)?.turn ?? 0) + 1, startedAt: at, endedAt: at });
      ledger.turns.splice(0, Math.max(0, ledger.turns.length - KEPT_TURNS));
      try {
        await writeLedger(gitDir, ledger);
      } catch {
        // A full disk: the review names one fewer.
      }
    };
    return this.queue(who.key, moment).then(() => undefined);
  }

  /** When the checkpoints asked so far are taken (for a reader that must see them, and for tests). */
  settled(key: string): Promise<void> {
    return (this.queues.get(key) ?? Promise.resolve()).then(() => undefined);
  }

  private queue<T>(key: string, work: () => Promise<T>): Promise<T | null> {
    if (!REVIEW_KEY.test(key)) return Promise.resolve(null);
    const next = (this.queues.get(key) ?? Promise.resolve()).then(work, work).catch(() => null);
    this.queues.set(key, next);
    void next.then(() => {
      if (this.queues.get(key) === next) this.queues.delete(key);
    });
    return next;
  }

  /** Takes a checkpoint of the turn's `edge`; at its end, how many files the turn changed (null: not known). */
  private async checkpoint(who: CheckpointOwner, edge: 'start' | 'end'): Promise<number | null> {
    const folder = realFolder(who.folder);
    const gitDir = shadowDir(this.root, folder);
    // Never through a link: the repository and its ledgers are only ever in folders of MadoHub's own.
    for (const dir of [this.root, gitDir, path.join(gitDir, 'madohub')]) ownFolder(dir);
    const ledger: Ledger = readLedger(gitDir, who.key) ?? {
      key: who.key,
      agent: who.agent,
      name: who.name,
      folder,
      at: 0,
      turns: [],
    };
    ledger.agent = who.agent;
    ledger.name = who.name;
    ledger.folder = folder;
    const at = this.now();
    ledger.at = at;
    const last = ledger.turns.at(-1);
    let turn: LedgerTurn;
    if (edge === 'start') {
      // A turn that has not ended goes on (its state flickered); else a new one begins.
      if (last && last.endedAt === undefined) return null;
      turn = { turn: (last?.turn ?? 0) + 1, startedAt: at };
      ledger.turns.push(turn);
    } else if (last && last.endedAt === undefined) {
      turn = last;
      turn.endedAt = at;
    } else {
      // Its start was not seen (MadoHub came in during it): it began where the turn before ended.
      turn = { turn: (last?.turn ?? 0) + 1, startedAt: last?.endedAt ?? at, endedAt: at };
      if (last?.end) turn.start = last.end;
      else turn.skipped = 'no checkpoint of its start (MadoHub came in during it)';
      ledger.turns.push(turn);
    }
    try {
      const tree = await this.snapshot(gitDir, folder, who.key);
      turn[edge] = tree;
      if (edge === 'start') delete turn.skipped;
      await gitOk({ gitDir }, ['update-ref', `refs/madohub/${who.key}/${turn.turn}/${edge}`, tree]);
      // A start taken from the turn before's end is held by a ref of this turn too (that one is pruned first).
      if (edge === 'end' && turn.start && turn.start === last?.end && turn !== last)
        await gitOk({ gitDir }, ['update-ref', `refs/madohub/${who.key}/${turn.turn}/start`, turn.start]);
    } catch (err) {
      turn.skipped = safeText(`no checkpoint: ${err instanceof Error ? err.message : String(err)}`).slice(0, 300);
    }
    const pruned = ledger.turns.splice(0, Math.max(0, ledger.turns.length - KEPT_TURNS));
    try {
      await writeLedger(gitDir, ledger);
      if (pruned.length > 0) await this.prune(gitDir, who.key, pruned);
    } catch {
      // A full or read-only disk: the turn is not reviewable; nothing else depends on it.
    }
    return edge === 'end' && turn.start && turn.end ? changedFiles(gitDir, turn.start, turn.end) : null;
  }

  /** The folder's tree now, written into the shadow repository (an Error with the word why not). */
  private async snapshot(gitDir: string, folder: string, key: string): Promise<string> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.bounds.timeMs);
    const signal = controller.signal;
    try {
      if (!isFolder(folder)) throw new Error('its folder is gone');
      const place: GitPlace = {
        gitDir,
        workTree: folder,
        index: path.join(gitDir, 'madohub', `${key}.index`),
        ...(await this.excludes()),
      };
      try {
        lstatSync(path.join(gitDir, 'HEAD'));
      } catch {
        await gitOk({ gitDir }, ['init', '--quiet', '--bare', '--template=', gitDir], { signal });
      }
      dropStaleLock(`${place.index}.lock`, this.bounds.timeMs + GIT_END_GRACE_MS);
      const excludes = folderExcludes(folder);
      const excludeFile = path.join(gitDir, 'info', 'exclude');
      const had = readBounded(excludeFile, 64 * 1024);
      if (!had.ok || had.text !== excludes) {
        ownFolder(path.join(gitDir, 'info'));
        await writeReplacing(excludeFile, excludes);
      }
      // The files it would keep: too many is no checkpoint.
      let count = 0;
      const listed = await git(place, ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        signal,
        onChunk: (chunk) => {
          for (const b of chunk) if (b === 0) count++;
          return count <= this.bounds.maxFiles;
        },
      });
      if (count > this.bounds.maxFiles)
        throw new Error(`the folder has over ${this.bounds.maxFiles.toLocaleString('en')} files`);
      if (listed.code !== 0 || listed.cut) throw new Error(gitProblem(listed));
      const paths = listed.stdout
        .toString('utf8')
        .split('\0')
        .filter((p) => p !== '');
      const large: { path: string; size: number }[] = [];
      for (let i = 0; i < paths.length; i += 64) {
        const batch = paths.slice(i, i + 64);
        const stats = await Promise.all(batch.map((p) => lstat(path.join(folder, p)).catch(() => undefined)));
        stats.forEach((s, j) => {
          const p = batch[j];
          if (s?.isFile() && s.size > this.bounds.largeBytes && p !== undefined) large.push({ path: p, size: s.size });
        });
        if (signal.aborted) throw new Error(`the checkpoint took over ${this.bounds.timeMs / 1000} s`);
      }
      const specs = [':(top)', ...large.map((l) => `:(top,exclude,literal)${l.path}`)];
      await gitOk(place, ['add', '-A', '--ignore-errors', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        signal,
        input: `${specs.join('\0')}\0`,
      });
      const entries: string[] = [];
      for (const l of large) {
        const stub = await largeStub(path.join(folder, l.path), l.size, signal);
        const blob = (await gitOk(place, ['hash-object', '-w', '--stdin'], { signal, input: stub })).toString().trim();
        entries.push(`100644 ${blob}\t${l.path}`);
      }
      if (entries.length > 0)
        await gitOk(place, ['update-index', '--add', '-z', '--index-info'], {
          signal,
          input: `${entries.join('\0')}\0`,
        });
      return (await gitOk(place, ['write-tree'], { signal })).toString().trim();
    } catch (err) {
      if (signal.aborted) throw new Error(`the checkpoint took over ${this.bounds.timeMs / 1000} s`);
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Drops the refs of pruned turns; their trees go with the repository's next prune. */
  private async prune(gitDir: string, key: string, turns: LedgerTurn[]): Promise<void> {
    const lines = turns.flatMap((t) =>
      (['start', 'end'] as const).map((edge) => `delete refs/madohub/${key}/${t.turn}/${edge}\n`),
    );
    await git({ gitDir }, ['update-ref', '--stdin'], { input: lines.join('') });
    // Unreachable objects an hour old go (a checkpoint under way keeps its fresh ones), every tenth turn.
    if (turns.some((t) => t.turn % PRUNE_EVERY === 0)) await git({ gitDir }, ['prune', '--expire=1.hour.ago']);
  }
}

/** The shadow repositories under the review's folder. */
export function shadowDirs(root: string): string[] {
  try {
    return readdirSync(root)
      .filter((n) => /^[0-9a-f]{24}\.git$/.test(n))
      .map((n) => path.join(root, n));
  } catch {
    return [];
  }
}
