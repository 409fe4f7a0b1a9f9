// How large the review's checkpoints are, and keeping them under the user's bound: past it, the agents whose
// last checkpoint is oldest lose theirs first (their ledgers, refs and index), then the repositories
// drop what no ref holds. What :checkhealth shows of them too.
import { lstat, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { git, userGit } from './git.js';
import { safeText } from '../shared/text.js';
import { isUserKey, ledgersOf } from './ledger.js';
import { shadowDirs } from './checkpoint.js';
import { readdirSync } from 'node:fs';

/** The review's checkpoints when they are not bounded otherwise (`review.max_mb`). */
export const DEFAULT_MAX_MB = 1024;

/** The most files a size count walks (a count past it says "at least"). */
const MAX_WALK = 500_000;

/** The bytes under a folder (links not followed), and whether the walk stopped at its bound. */
export async function folderBytes(dir: string): Promise<{ bytes: number; partial: boolean }> {
  let bytes = 0;
  let seen = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop() ?? '';
    let names: string[];
    try {
      names = await readdir(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (++seen > MAX_WALK) return { bytes, partial: true };
      const p = path.join(d, n);
      const st = await lstat(p).catch(() => undefined);
      if (st?.isDirectory()) stack.push(p);
      else if (st) bytes += st.size;
    }
  }
  return { bytes, partial: false };
}

/** Drops the oldest agents' checkpoints until the review's folder is under `maxBytes`; how many agents went. */
export async function boundCheckpoints(root: string, maxBytes: number): Promise<number> {
  let { bytes } = await folderBytes(root);
  if (bytes <= maxBytes) return 0;
  const all = shadowDirs(root).flatMap((gitDir) =>
    ledgersOf(gitDir, (d) => readdirSync(d)).map((ledger) => ({ gitDir, ledger })),
  );
  all.sort((a, b) => a.ledger.at - b.ledger.at);
  let dropped = 0;
  for (const { gitDir, ledger } of all) {
    if (bytes <= maxBytes) break;
    const key = ledger.key;
    await rm(path.join(gitDir, 'madohub', `${key}.json`), { force: true });
    await rm(path.join(gitDir, 'madohub', `${key}.index`), { force: true });
    const refs = await git({ gitDir }, ['for-each-ref', '--format=delete %(refname)', `refs/madohub/${key}/`]);
    await git({ gitDir }, ['update-ref', '--stdin'], { input: refs.stdout });
    await git({ gitDir }, ['prune', '--expire=now']);
    dropped++;
    // A repository no agent has checkpoints in any more goes whole.
    if (ledgersOf(gitDir, (d) => readdirSync(d)).length === 0) await rm(gitDir, { recursive: true, force: true });
    ({ bytes } = await folderBytes(root));
  }
  return dropped;
}

/** What :checkhealth shows of the review. */
export interface ReviewHealth {
  /** git's version, or null when it does not run. */
  git: string | null;
  dir: string;
  repositories: number;
  agents: number;
  bytes: number;
  maxBytes: number;
  /** The agents whose last turn has no checkpoint, and why. */
  skipped: { name: string; turn: number; why: string }[];
}

/** git's version, or null when it does not run (asked without holding the caller: :checkhealth's Node side). */
async function gitVersion(): Promise<string | null> {
  const r = await userGit(['--version']);
  const version = safeText(
    r.stdout
      .toString('utf8')
      .trim()
      .replace(/^git version /, ''),
  ).slice(0, 80);
  return r.code === 0 && !r.cut ? version : null;
}

export async function reviewHealth(root: string, maxBytes: number): Promise<ReviewHealth> {
  const version = await gitVersion();
  const dirs = shadowDirs(root);
  const ledgers = dirs.flatMap((d) => ledgersOf(d, (x) => readdirSync(x))).filter((l) => !isUserKey(l.key));
  const skipped = ledgers.flatMap((l) => {
    const t = l.turns.at(-1);
    return t?.skipped ? [{ name: l.name, turn: t.turn, why: t.skipped }] : [];
  });
  return {
    git: version,
    dir: root,
    repositories: dirs.length,
    agents: ledgers.length,
    bytes: (await folderBytes(root)).bytes,
    maxBytes,
    skipped: skipped.slice(0, 20),
  };
}
