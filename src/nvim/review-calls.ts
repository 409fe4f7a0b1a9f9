// :MadoReview's calls (issue 29): a turn of a terminal of this Neovim (its checkpoints are this process's),
// or of a job (the `review` operation, here or by its host's bridge), with its files' texts; and `X`,
// a hunk undone in the folder of a terminal or a job of this machine.
import type { Remotes } from '../jobs/remote/remotes.js';
import { findLedger, reviewCheck, reviewTurn } from '../review/read.js';
import { holdsCheck } from '../shared/checks.js';
import type { TurnReview } from '../review/read.js';
import { undoHunk } from '../review/undo.js';
import { reviewHead } from '../review/text.js';
import { parseFleetId, reviewKey } from '../shared/fleet-id.js';
import { reviewDir } from '../shared/xdg.js';
import type { FromLua } from './from-lua.js';
import { opCall } from './op-calls.js';

/** The review of entry `id`'s turn (its last finished one unless `turn`), with its head in words for the list. */
export async function reviewCall(
  m: FromLua<'review'>,
  remotes: Remotes | undefined,
): Promise<TurnReview & { head: string[] }> {
  const review = await entryReview(m, remotes);
  return { ...review, head: reviewHead(review) };
}

async function entryReview(m: FromLua<'review'>, remotes: Remotes | undefined): Promise<TurnReview> {
  const id = parseFleetId(m.id);
  const turn = m.turn === undefined ? {} : { turn: m.turn };
  if (id?.kind === 'term') return reviewTurn(reviewDir(), reviewKey(id) ?? '', { ...turn, contents: true });
  if (id?.kind !== 'job') throw new Error('only a terminal’s or a job’s turns have checkpoints');
  const result = await opCall(
    {
      op: 'run',
      name: 'review',
      args: { id: id.short, ...turn, contents: true },
      ...(id.host ? { host: id.host } : {}),
    },
    remotes,
  );
  if (!holdsCheck(reviewCheck, result)) throw new Error('the review came back as none');
  return result;
}

/**
 * `X`: the hunk at `line` of `path` undone in the folder of a terminal or a job of this machine (the
 * folder its checkpoints name), given the file's text at the turn's start and as the review shows it.
 */
export function reviewUndo(m: FromLua<'review_undo'>): { text: string | null } {
  const id = parseFleetId(m.id);
  if (id?.kind === 'job' && id.host !== '')
    throw new Error('a hunk of another machine’s job is undone there, not from here');
  const key = id ? reviewKey(id) : undefined;
  const found = key ? findLedger(reviewDir(), key) : undefined;
  if (!found) throw new Error('no turn of it has checkpoints');
  return { text: undoHunk(found.ledger.folder, m.path, m.before, m.expected, m.line) };
}
