// The jobs as the hub shows them: each listing of their folder, never going back to an older file.
import type { ListedJob } from '../jobs/protocol/replies.js';

/**
 * The jobs as newly listed. A job whose file was read fine before is never taken back to an older
 * file: a listing read before a write (the hub's own mark, or one a listing read in parallel) may end
 * after it. A job listed while its file could not be read (being made) takes the file whatever its time.
 */
export function newestJobs(known: readonly ListedJob[], listed: readonly ListedJob[]): ListedJob[] {
  const byShort = new Map(known.map((j) => [j.short, j]));
  return listed.map((j) => {
    const k = byShort.get(j.short);
    return k && k.error === undefined && j.error === undefined && j.updatedAt < k.updatedAt ? { ...k, alive: j.alive } : j;
  });
}
