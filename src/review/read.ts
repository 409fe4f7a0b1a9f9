// A turn's change as the review shows it: the difference of the turn's two trees in its folder's shadow
// repository, file by file (status, +/- counts, its unified diff, and on request the text before and
// after), with the other agents that worked in the folder meanwhile. Bounded in files and bytes.
import { readdirSync } from 'node:fs';
import type { Check } from '../shared/checks.js';
import { int, oneOf, optional, orNull, plainMax, shape, str, strMax, stringsMax } from '../shared/checks.js';
import { git, gitProblem } from './git.js';
import type { GitPlace } from './git.js';
import { ledgersOf, readLedger } from './ledger.js';
import type { Ledger, LedgerTurn } from './ledger.js';
import { LARGE_STUB, shadowDirs } from './checkpoint.js';

export const FILE_STATUSES = ['added', 'modified', 'deleted', 'renamed'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

export interface ReviewFile {
  path: string;
  status: FileStatus;
  oldPath?: string;
  diff: string;
  added: number;
  removed: number;
  /** A word in place of its lines: `binary or large`, `a submodule`, `diff too large`. */
  note?: string;
  /** Its text at the turn's start and end, when asked and small enough (null: none there). */
  before?: string | null;
  after?: string | null;
}

export interface TurnReview {
  agent: string;
  name: string;
  turn: number;
  /** How many turns are kept (turn numbers run from the first kept to this). */
  first: number;
  last: number;
  startedAt: number;
  endedAt: number | null;
  folder: string;
  /** The other agents that worked in the folder during the turn. */
  others: string[];
  files: ReviewFile[];
  /** Why the turn has no change to show (no checkpoint, still under way), else absent. */
  skipped?: string;
  /** Files beyond those shown. */
  more?: number;
}

/** The bounds of a review. */
const MAX_FILES = 2000;
const MAX_DIFF_BYTES = 16 * 1024 * 1024;
const MAX_FILE_DIFF = 1024 * 1024;
const MAX_CONTENT = 512 * 1024;
const MAX_CONTENTS = 16 * 1024 * 1024;

/** Finds an agent's ledger (the newest, if it has checkpoints in several folders) and its repository. */
export function findLedger(root: string, key: string): { gitDir: string; ledger: Ledger } | undefined {
  let found: { gitDir: string; ledger: Ledger } | undefined;
  for (const gitDir of shadowDirs(root).slice(0, 5000)) {
    const ledger = readLedger(gitDir, key);
    if (ledger && (!found || ledger.at > found.ledger.at)) found = { gitDir, ledger };
  }
  return found;
}

/** The names of the other agents whose turns in the folder overlapped this one. */
function othersOf(gitDir: string, key: string, t: LedgerTurn, now: number): string[] {
  const end = t.endedAt ?? now;
  const names = new Set<string>();
  for (const l of ledgersOf(gitDir, (d) => readdirSync(d))) {
    if (l.key === key) continue;
    if (l.turns.some((o) => o.startedAt < end && (o.endedAt ?? now) > t.startedAt)) names.add(l.name);
  }
  return [...names].sort();
}

/** A raw entry of `git diff --raw -z`: its status letter, blobs, paths. */
interface RawEntry {
  status: FileStatus;
  oldBlob: string;
  newBlob: string;
  oldMode: string;
  newMode: string;
  path: string;
  oldPath?: string;
}

function parseRaw(out: string): RawEntry[] {
  const parts = out.split('\0');
  const entries: RawEntry[] = [];
  for (let i = 0; i < parts.length - 1; ) {
    const head = parts[i++] ?? '';
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]{40}) ([0-9a-f]{40}) ([ACDMRTUX])\d*$/.exec(head);
    if (!m) break;
    const [, oldMode = '', newMode = '', oldBlob = '', newBlob = '', letter = 'M'] = m;
    const first = parts[i++] ?? '';
    if (letter === 'R' || letter === 'C') {
      const second = parts[i++] ?? '';
      entries.push({ status: 'renamed', oldBlob, newBlob, oldMode, newMode, path: second, oldPath: first });
    } else {
      const status: FileStatus = letter === 'A' ? 'added' : letter === 'D' ? 'deleted' : 'modified';
      entries.push({ status, oldBlob, newBlob, oldMode, newMode, path: first });
    }
  }
  return entries;
}

/** Splits a whole patch into its files' parts, in git's order (that of --raw). */
function splitPatch(patch: string): string[] {
  const parts: string[] = [];
  let at = patch.startsWith('diff --git ') ? 0 : patch.indexOf('\ndiff --git ');
  while (at >= 0 && at < patch.length) {
    const from = patch[at] === '\n' ? at + 1 : at;
    const next = patch.indexOf('\ndiff --git ', from);
    parts.push(patch.slice(from, next < 0 ? patch.length : next + 1));
    at = next;
  }
  return parts;
}

function counts(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('@@')) inHunk = true;
    else if (!inHunk) continue;
    else if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  return { added, removed };
}

const NULL_BLOB = /^0{40}$/;
/** git's name of the empty file. */
const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

/** The blobs' texts (`git cat-file --batch`), those small enough, within the bound. */
async function contentsOf(place: GitPlace, blobs: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const wanted = [...new Set(blobs.filter((b) => !NULL_BLOB.test(b)))];
  if (wanted.length === 0) return out;
  const sizes = await git(place, ['cat-file', '--batch-check'], { input: `${wanted.join('\n')}\n` });
  const small: string[] = [];
  let total = 0;
  for (const line of sizes.stdout.toString('utf8').split('\n')) {
    const m = /^([0-9a-f]{40}) blob (\d+)$/.exec(line);
    if (!m?.[1] || Number(m[2]) > MAX_CONTENT || total + Number(m[2]) > MAX_CONTENTS) continue;
    total += Number(m[2]);
    small.push(m[1]);
  }
  if (small.length === 0) return out;
  const batch = (await git(place, ['cat-file', '--batch'], { input: `${small.join('\n')}\n` })).stdout;
  let at = 0;
  while (at < batch.length) {
    const eol = batch.indexOf(10, at);
    if (eol < 0) break;
    const m = /^([0-9a-f]{40}) blob (\d+)$/.exec(batch.subarray(at, eol).toString('utf8'));
    if (!m?.[1]) break;
    const size = Number(m[2]);
    out.set(m[1], batch.subarray(eol + 1, eol + 1 + size).toString('utf8'));
    at = eol + 1 + size + 1;
  }
  return out;
}

/** The review of an agent's turn (the last one that ended when `turn` is not given). */
export async function reviewTurn(
  root: string,
  key: string,
  opts: { turn?: number; contents?: boolean; now?: number } = {},
): Promise<TurnReview> {
  const found = findLedger(root, key);
  if (!found) throw new Error('no turn of it has checkpoints (MadoHub takes them from the first turn it sees begin)');
  const { gitDir, ledger } = found;
  const ended = ledger.turns.filter((t) => t.endedAt !== undefined);
  const t =
    opts.turn === undefined ? (ended.at(-1) ?? ledger.turns.at(-1)) : ledger.turns.find((x) => x.turn === opts.turn);
  const first = ledger.turns[0]?.turn ?? 1;
  const last = ledger.turns.at(-1)?.turn ?? 0;
  if (!t)
    throw new Error(
      opts.turn === undefined
        ? 'no turn of it has checkpoints yet'
        : `no turn ${opts.turn} is kept (turns ${first}–${last} are)`,
    );
  const now = opts.now ?? Date.now();
  const review: TurnReview = {
    agent: ledger.agent,
    name: ledger.name,
    turn: t.turn,
    first,
    last,
    startedAt: t.startedAt,
    endedAt: t.endedAt ?? null,
    folder: ledger.folder,
    others: othersOf(gitDir, key, t, now),
    files: [],
  };
  if (t.endedAt === undefined) return { ...review, skipped: 'the turn is under way' };
  if (!t.start || !t.end) return { ...review, skipped: t.skipped ?? 'the turn has no checkpoints' };
  const place: GitPlace = { gitDir };
  const raw = await git(place, ['diff', '--raw', '-z', '-M', '--no-abbrev', t.start, t.end]);
  if (raw.code !== 0) throw new Error(gitProblem(raw));
  const entries = parseRaw(raw.stdout.toString('utf8'));
  const shown = entries.slice(0, MAX_FILES);
  const patch = await git(place, ['diff', '-M', '--no-color', '--no-ext-diff', t.start, t.end], {
    maxBytes: MAX_DIFF_BYTES,
  });
  const parts = patch.cut ? [] : splitPatch(patch.stdout.toString('utf8'));
  const texts = opts.contents
    ? await contentsOf(
        place,
        shown.flatMap((e) => [e.oldBlob, e.newBlob]),
      )
    : undefined;
  const textOf = (blob: string): string | null | undefined =>
    NULL_BLOB.test(blob) ? null : texts?.has(blob) ? texts.get(blob) : undefined;
  review.files = shown.map((e, i) => {
    let diff = parts[i] ?? '';
    let note: string | undefined;
    if (patch.cut) note = 'diff too large';
    else if (diff.length > MAX_FILE_DIFF) {
      diff = '';
      note = 'diff too large';
    } else if (diff.includes(LARGE_STUB)) note = 'binary or large';
    else if (/^Binary files /m.test(diff)) note = 'binary or large';
    else if (e.oldMode === '160000' || e.newMode === '160000') note = 'a submodule';
    else if (EMPTY_BLOB === (e.status === 'deleted' ? e.oldBlob : e.newBlob) && e.status !== 'modified') note = 'empty';
    const file: ReviewFile = {
      path: e.path,
      status: e.status,
      ...(e.oldPath !== undefined ? { oldPath: e.oldPath } : {}),
      diff,
      ...counts(diff),
      ...(note ? { note } : {}),
    };
    if (texts && !note) {
      const before = textOf(e.oldBlob);
      const after = textOf(e.newBlob);
      if (before !== undefined) file.before = before;
      if (after !== undefined) file.after = after;
    }
    return file;
  });
  if (entries.length > shown.length) review.more = entries.length - shown.length;
  return review;
}

/** The turn's change as one unified diff (what `mado review` prints, and `send=diff` sends). */
export function unifiedDiff(review: TurnReview): string {
  return review.files.map((f) => f.diff || `${f.status} ${f.path}${f.note ? ` (${f.note})` : ''}\n`).join('');
}

const fileCheck = shape(
  {
    path: strMax(4096),
    status: oneOf(...FILE_STATUSES),
    oldPath: optional(strMax(4096)),
    diff: str,
    added: int(0, Number.MAX_SAFE_INTEGER),
    removed: int(0, Number.MAX_SAFE_INTEGER),
    note: optional(plainMax(100)),
    before: optional(orNull(str)),
    after: optional(orNull(str)),
  },
  'a file of the review',
);

const filesCheck: Check<ReviewFile[]> = (v) =>
  Array.isArray(v) && v.length <= MAX_FILES && v.every((f) => fileCheck(f) === null) ? null : 'files of a review';

/** A review as another machine sends it: checked before it is shown. */
export const reviewCheck: Check<TurnReview> = shape(
  {
    agent: strMax(64),
    name: strMax(200),
    turn: int(1, Number.MAX_SAFE_INTEGER),
    first: int(0, Number.MAX_SAFE_INTEGER),
    last: int(0, Number.MAX_SAFE_INTEGER),
    startedAt: int(0, Number.MAX_SAFE_INTEGER),
    endedAt: orNull(int(0, Number.MAX_SAFE_INTEGER)),
    folder: strMax(4096),
    others: stringsMax(100),
    files: filesCheck,
    skipped: optional(plainMax(300)),
    more: optional(int(0, Number.MAX_SAFE_INTEGER)),
  },
  'a turn’s review',
);
