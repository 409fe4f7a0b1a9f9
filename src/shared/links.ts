// A path is followed only where no part of it is a symbolic link: a file MadoHub writes is never
// reached through one (O_NOFOLLOW covers only the last part).
import { lstatSync } from 'node:fs';
import path from 'node:path';

/** The first part of absolute `file` (a folder above it, or itself) that is a symbolic link, or undefined. */
export function linkInPath(file: string): string | undefined {
  const parts = path.resolve(file).split(path.sep).filter(Boolean);
  let at: string = path.sep;
  for (const part of parts) {
    at = path.join(at, part);
    try {
      if (lstatSync(at).isSymbolicLink()) return at;
    } catch {
      // Not there (yet): nothing below it is a link either.
      return undefined;
    }
  }
  return undefined;
}

/** Why `file` is not to be written (a part of its path is a link), for a person; undefined when it may be. */
export function linkProblem(file: string): string | undefined {
  const link = linkInPath(file);
  return link && `${link.slice(0, 200)} is a link: MadoHub never writes through one`;
}
