// Files the tests read or make: the plugin's Lua sources, a folder of each test's own, and a copy of the
// repository that a test adds a file to and builds (a new agent, a new operation: one file and nothing more).
import { execFile, execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';

export const ROOT = path.resolve(__dirname, '../..');

/** A throwaway folder made for each test of the file that calls it (named `prefix…`), removed after it: its path. */
export function folderEach(prefix: string): () => string {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), prefix));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return () => dir;
}

/** Every Lua file of the plugin, read. */
export function luaFiles(dir = path.join(ROOT, 'lua', 'madohub')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? luaFiles(path.join(dir, e.name))
      : e.name.endsWith('.lua')
        ? [readFileSync(path.join(dir, e.name), 'utf8')]
        : [],
  );
}

/**
 * A copy of the repository in `base`/madohub (its node_modules linked), with `added` (path → text)
 * written into it, built once: the copy's folder.
 */
export function builtCopy(base: string, added: Record<string, string>): string {
  const copy = path.join(base, 'madohub');
  mkdirSync(copy);
  for (const part of ['src', 'lua', 'plugin', 'scripts', 'doc', 'bin', 'package.json', 'tsconfig.json']) {
    cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  for (const [file, text] of Object.entries(added)) writeFileSync(path.join(copy, file), text);
  execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: copy, stdio: 'pipe' });
  return copy;
}

/** The copy's `mado ARGS`, given `input` on standard input: its status and output (30 s at most). */
export function madoOf(
  copy: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  input = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [path.join(copy, 'bin/mado'), ...args],
      { env, timeout: 30000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(input);
  });
}
