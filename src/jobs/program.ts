// Whether a job's agent program can be run: on its PATH, or at the path it names.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Whether `file` is a file this user may run. */
export function runnable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Why `program` cannot be run with the job's PATH, or null. */
export function programProblem(program: string, envPath: string | undefined, cwd: string): string | null {
  if (program.includes('/')) {
    const p = path.resolve(cwd, program);
    return runnable(p) ? null : `the agent program ${program} does not exist or cannot be run`;
  }
  const dirs = (envPath ?? '').split(path.delimiter).filter(Boolean);
  if (dirs.some((d) => runnable(path.join(d, program)))) return null;
  return `the agent program '${program}' is not on the job's PATH (install it, or name it in a template: see :help madohub-templates)`;
}
