// Loop safety for routes. Pure: a payload's chain (its id, its hop, the entries it reached), whether a
// delivery may go, and whether a new route closes a cycle.
import type { Chain, Route } from '../shared/route-types.js';

/**
 * The chain a delivery from `source` to `target` continues: the one that reached `source` last (the
 * user's own input started none), or a new one. Refused when it would make more than `hops`
 * deliveries or come back to an entry it has reached.
 */
export function nextChain(
  reached: Chain | undefined,
  source: string,
  target: string,
  hops: number,
  newId: () => string,
): { chain: Chain } | { drop: string } {
  const from = reached ?? { id: newId(), hop: 0, visited: [source] };
  const hop = from.hop + 1;
  if (hop > hops) return { drop: `the chain has made ${from.hop} of its ${hops} hops` };
  if (from.visited.includes(target))
    return { drop: `${target} is in this chain already (${[...from.visited, target].join(' → ')})` };
  return { chain: { id: from.id, hop, visited: [...from.visited, target] } };
}

/** Whether the routes, with `added`, lead from `added.target` back to `added.source` (a cycle). */
export function closesCycle(
  routes: readonly Pick<Route, 'source' | 'target'>[],
  added: Pick<Route, 'source' | 'target'>,
): boolean {
  const next = new Map<string, string[]>();
  for (const r of routes) next.set(r.source, [...(next.get(r.source) ?? []), r.target]);
  const seen = new Set<string>();
  const todo = [added.target];
  while (todo.length > 0) {
    const at = todo.pop()!;
    if (at === added.source) return true;
    if (seen.has(at)) continue;
    seen.add(at);
    todo.push(...(next.get(at) ?? []));
  }
  return false;
}
