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
