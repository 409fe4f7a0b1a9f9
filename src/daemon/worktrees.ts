// The git worktree of a job: made on a checked branch name, and removed only when nothing in it
// would be lost (uncommitted changes, commits on no other branch) unless forced.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const GIT_MS = 20000;

function git(args: string[]): { ok: true; out: string } | { ok: false; err: string } {
  try {
    return {
      ok: true,
      out: execFileSync('git', args, { stdio: 'pipe', encoding: 'utf8', timeout: GIT_MS, maxBuffer: 4 * 1024 * 1024 }),
    };
  } catch (err) {
    const e = err as { stderr?: string; message?: string };
    return { ok: false, err: (e.stderr || e.message || String(err)).trim().slice(0, 400) };
  }
}

/** Why `branch` cannot name a job's branch (git's own rule, and no leading '-'), or null. */
export function badBranch(branch: string): string | null {
  if (branch === '' || branch.startsWith('-') || /[\x00-\x1f\x7f]/.test(branch) || branch.length > 200)
    return `'${branch.replace(/[\x00-\x1f\x7f]/g, '?').slice(0, 80)}' is not a valid branch name`;
  const r = git(['check-ref-format', '--branch', branch]);
  return r.ok ? null : `'${branch}' is not a valid branch name`;
}

/** Creates `<job>/worktree` on a new branch of the repository `cwd` is in. */
export function makeWorktree(
  cwd: string,
  jobDir: string,
  branch: string,
): { path: string; branch: string } | { error: string } {
  const bad = badBranch(branch);
  if (bad) return { error: bad };
  const wt = path.join(jobDir, 'worktree');
  const r = git(['-C', cwd, 'worktree', 'add', '-b', branch, '--', wt]);
  return r.ok ? { path: wt, branch } : { error: `cannot create a git worktree from ${cwd}: ${r.err}` };
}

/** What removing the worktree would lose: its uncommitted changes and its commits on no other branch. */
export function unsavedWork(worktree: string, branch: string | null): string[] {
  if (!existsSync(worktree)) return [];
  const out: string[] = [];
  const status = git(['-C', worktree, 'status', '--porcelain', '--untracked-files=normal']);
  if (!status.ok) return [`cannot read its state (${status.err})`];
  const changed = status.out.split('\n').filter(Boolean);
  if (changed.length > 0) {
    const names = changed
      .slice(0, 5)
      .map((l) => l.slice(3))
      .join(', ');
    out.push(
      `${changed.length} uncommitted change${changed.length === 1 ? '' : 's'} (${names}${changed.length > 5 ? ', …' : ''})`,
    );
  }
  const others = branch ? [`--exclude=${branch}`] : [];
  const commits = git([
    '-C',
    worktree,
    'log',
    '--format=%h %s',
    '-n',
    '6',
    'HEAD',
    '--not',
    ...others,
    '--branches',
    '--remotes',
  ]);
  if (commits.ok) {
    const list = commits.out.split('\n').filter(Boolean);
    if (list.length > 0) {
      out.push(
        `commit${list.length === 1 ? '' : 's'} on no other branch: ${list.slice(0, 5).join('; ')}${list.length > 5 ? '; …' : ''}`,
      );
    }
  }
  return out;
}

/** Removes a job's worktree (its branch stays in the repository); the error, or null. */
export function removeWorktree(originCwd: string, worktree: string, force: boolean): string | null {
  if (!existsSync(worktree)) {
    git(['-C', originCwd, 'worktree', 'prune']);
    return null;
  }
  const r = git(['-C', originCwd, 'worktree', 'remove', ...(force ? ['--force'] : []), '--', worktree]);
  return r.ok ? null : `cannot remove the worktree ${worktree}: ${r.err}`;
}
