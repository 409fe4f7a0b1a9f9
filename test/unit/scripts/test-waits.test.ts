// The tests wait on conditions through one helper (test/helpers/wait.ts): a fixed sleep written in a
// test (a bare `vim.wait(N)` in the Neovim it drives, a promise around setTimeout) passes on a quiet
// machine and fails under load. What is about time itself says so through the helper's `elapse`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/files.js';

/** Every test file (fixtures and the helpers aside): its path from the root, and its text. */
function testFiles(dir = path.join(ROOT, 'test')): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const file = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'helpers' ? [] : testFiles(file);
    return e.name.endsWith('.ts') ? [{ file: path.relative(ROOT, file), text: readFileSync(file, 'utf8') }] : [];
  });
}

/** A fixed sleep: Neovim's `vim.wait(N)` with no condition, or a promise resolved by a timer. */
const FIXED_SLEEP = /\bvim\.wait\(\s*\d+\s*\)|new Promise\(\s*\(?\s*\w+\s*\)?\s*=>\s*setTimeout\(\s*\w+\s*,/;

describe('the tests', () => {
  it('sleep for no fixed time outside the wait helper', () => {
    const sleepers = testFiles()
      .filter(({ file }) => file !== path.join('test', 'unit', 'scripts', 'test-waits.test.ts'))
      .flatMap(({ file, text }) =>
        text.split('\n').flatMap((line, i) => (FIXED_SLEEP.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(sleepers).toEqual([]);
  });

  it('would be caught sleeping', () => {
    expect(FIXED_SLEEP.test("await s.lua('vim.wait(500)');")).toBe(true);
    expect(FIXED_SLEEP.test('await new Promise((r) => setTimeout(r, 100));')).toBe(true);
    expect(FIXED_SLEEP.test('vim.wait(5000, function() return done end, 10)')).toBe(false);
  });
});
