// Why a reply waits, as a code that travels, and its words for a person. Pure, and free of the
// agents' modules: the job list (`mado agents`' small bundle) reads it too.
/**
 * Why a reply waits, as it travels (a job's host's answer and its file, the fleet's entries, Lua's
 * cache): a code, '' once sent. Each has its words, made where a person reads them (PENDING_WORDS).
 */
export const PENDING = ['', 'queued', 'held-menu', 'held-draft', 'held-typing', 'sending'] as const;
export type Pending = (typeof PENDING)[number];

/** Each code's words for a person: in the picker's row, `mado send`'s answer, a route's message. */
export const PENDING_WORDS: Record<Pending, string> = {
  '': '',
  queued: 'queued',
  'held-menu': 'held: menu',
  'held-draft': 'held: draft',
  'held-typing': 'held: Terminal mode',
  sending: 'sending',
};

/**
 * Why a reply waits, from anywhere (a job file, a host's answer): its code; the words an older host
 * wrote in their place are read as their codes, and what else waits unnamed as queued.
 */
export function asPending(v: unknown): Pending {
  if (typeof v !== 'string' || v === '') return '';
  return PENDING.find((p) => p === v) ?? PENDING.find((p) => PENDING_WORDS[p] === v) ?? 'queued';
}
