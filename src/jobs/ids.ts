import { randomBytes, randomUUID } from 'node:crypto';

export function newShortId(): string {
  return randomBytes(4).toString('hex');
}

export function newSessionId(): string {
  return randomUUID();
}

export type IdMatch = { ok: true; short: string } | { ok: false; error: string };

/** A job by its short id or a unique prefix of it. */
export function matchId(shorts: readonly string[], query: string): IdMatch {
  const q = query.trim().toLowerCase();
  if (q === '') return { ok: false, error: 'no job id given' };
  if (shorts.includes(q)) return { ok: true, short: q };
  const hits = shorts.filter((s) => s.startsWith(q));
  if (hits.length === 1) return { ok: true, short: hits[0]! };
  if (hits.length === 0) return { ok: false, error: `no job '${query}'` };
  return { ok: false, error: `'${query}' matches ${hits.length} jobs` };
}

/**
 * A job by its id, a unique prefix of it, or else its name (exactly; `names` is read only then, as
 * it reads every job file). Several jobs of one name are named by their ids.
 */
export function matchJob(
  shorts: readonly string[],
  query: string,
  names: () => readonly { short: string; name: string }[],
): IdMatch {
  const byId = matchId(shorts, query);
  if (byId.ok || query.trim() === '' || /matches \d+ jobs$/.test(byId.error)) return byId;
  const named = names().filter((j) => j.name === query.trim());
  if (named.length === 1) return { ok: true, short: named[0]!.short };
  if (named.length > 1)
    return { ok: false, error: `${named.length} jobs are named '${query}': ${named.map((j) => j.short).join(', ')}` };
  return byId;
}
