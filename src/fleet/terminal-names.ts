// A terminal's name, told apart from the other terminals' names: two Claude Codes in one folder are
// `claude main` and `claude main 2`.

/**
 * The name of a terminal whose agent and folder name it `base`: the one it `had` while that is still
 * free (its own `base` or `base N`), else `base` if free, else the first free `base N` (N from 2).
 */
export function freeName(base: string, had: string | undefined, taken: ReadonlySet<string>): string {
  const ownBefore =
    had !== undefined && (had === base || (had.startsWith(`${base} `) && /^\d+$/.test(had.slice(base.length + 1))));
  if (ownBefore && !taken.has(had)) return had;
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base} ${n}`)) n++;
  return `${base} ${n}`;
}
