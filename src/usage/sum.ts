// `mado usage`: what the agents MadoHub knows spent, summed by agent, folder, model or day (from the
// entries' own usage, so that the sum agrees with what each entry says), and how it is written.
import { safeText } from '../shared/text.js';
import type { DailySpend, Spend, Usage } from './types.js';
import { addSpend, noSpend, tokensOf } from './view.js';

/** What a sum groups by. */
export const USAGE_GROUPS = ['agent', 'folder', 'model', 'day'] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

/** One entry's spending as `mado usage` sums it: who, where, and its usage. */
export interface SpendingEntry {
  agent: string;
  cwd: string;
  /** The remote host it runs on; '' for this machine. */
  host: string;
  usage: Usage;
}

/** A sum: its rows (each a group's spend), largest cost first, and the total. */
export interface UsageSum {
  by: UsageGroup;
  /** The first day counted (`YYYY-MM-DD`), or '' for all. */
  since: string;
  rows: (Spend & { key: string })[];
  total: Spend;
}

/** The spends of an entry's days from `since` on (all when ''). */
const daysOf = (usage: Usage, since: string): DailySpend[] => usage.daily.filter((d) => since === '' || d.day >= since);

/** The sum of the entries' spending from day `since` on, grouped by `by`. */
export function sumUsage(entries: readonly SpendingEntry[], by: UsageGroup, since = ''): UsageSum {
  const groups = new Map<string, Spend>();
  let total = noSpend();
  for (const e of entries) {
    for (const d of daysOf(e.usage, since)) {
      const key =
        by === 'agent'
          ? e.agent
          : by === 'folder'
            ? `${e.host ? `${e.host}:` : ''}${e.cwd}`
            : by === 'model'
              ? d.model || 'unknown'
              : d.day;
      groups.set(key, addSpend(groups.get(key) ?? noSpend(), d));
      total = addSpend(total, d);
    }
  }
  const rows = [...groups].map(([key, spend]) => ({ key, ...spend }));
  rows.sort(
    by === 'day'
      ? (a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
      : (a, b) => (b.costUsd ?? -1) - (a.costUsd ?? -1) || tokensOf(b) - tokensOf(a),
  );
  return { by, since, rows, total };
}

/** A count of tokens, short: `950`, `12.3k`, `4.5M`. */
export function shortTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1e6) return `${(n / 1e3).toFixed(n < 1e4 ? 1 : 0).replace(/\.0$/, '')}k`;
  if (n < 1e9) return `${(n / 1e6).toFixed(n < 1e7 ? 1 : 0).replace(/\.0$/, '')}M`;
  return `${(n / 1e9).toFixed(1).replace(/\.0$/, '')}B`;
}

/** A cost, short: `$0.41`, `<$0.01`; `$?` when unknown. */
export function shortCost(usd: number | null): string {
  if (usd === null) return '$?';
  if (usd > 0 && usd < 0.005) return '<$0.01';
  return `$${usd.toFixed(2)}`;
}

/** A spend in one short phrase, as a row shows it: `12.3k tok · $0.41` (no cost where none is known). */
export function spendShort(s: Spend): string {
  return `${shortTokens(tokensOf(s))} tok${s.costUsd === null ? '' : ` · ${shortCost(s.costUsd)}`}`;
}

/** A sum as a table for a person: a row per group, then the total. */
export function usageTable(sum: UsageSum): string {
  const header = [sum.by.toUpperCase(), 'INPUT', 'OUTPUT', 'CACHE READ', 'CACHE WRITE', 'COST'];
  const row = (key: string, s: Spend): string[] => [
    safeText(key).slice(0, 80),
    shortTokens(s.inputTokens),
    shortTokens(s.outputTokens),
    shortTokens(s.cacheReadTokens),
    shortTokens(s.cacheWriteTokens),
    shortCost(s.costUsd),
  ];
  const all = [header, ...sum.rows.map((r) => row(r.key, r)), row('total', sum.total)];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const lines = all.map((r) =>
    r
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd(),
  );
  const since = sum.since ? ` since ${sum.since}` : '';
  return sum.rows.length === 0 ? `no usage recorded${since}\n` : `${lines.join('\n')}\n`;
}
