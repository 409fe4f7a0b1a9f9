// The jobs as the hub shows them: each listing of their folder, and the hub's own writes of a job's
// file (a mark) kept until a listing has them.
import type { ListedJob } from '../jobs/protocol/replies.js';

/**
 * The jobs as newly listed; a job the hub wrote itself is kept as it wrote it while the listing is
 * older than that write (a listing read before the write ended after it: the write is not undone on
 * screen). Once a listing has caught up with a write, the write is forgotten.
 */
export function newestJobs(known: readonly ListedJob[], listed: readonly ListedJob[], wrote: Map<string, number>): ListedJob[] {
  const byShort = new Map(known.map((j) => [j.short, j]));
  return listed.map((j) => {
    const at = wrote.get(j.short);
    if (at === undefined) return j;
    const k = byShort.get(j.short);
    if (k && j.updatedAt < at) return { ...k, alive: j.alive };
    wrote.delete(j.short);
    return j;
  });
}
