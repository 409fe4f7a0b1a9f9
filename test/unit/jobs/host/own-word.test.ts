import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentsOwnWord, entryPoint } from '../../../../src/jobs/host/own-word.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'madohub-own-word-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const CLI = '/opt/lib/node_modules/@anthropic-ai/claude-code/cli.js';

describe('where an agent’s own flags go', () => {
  it('after the program, or after the script its interpreter runs; nowhere when it runs none', () => {
    expect(entryPoint(['claude', '--model', 'opus'])).toBe(0);
    expect(entryPoint(['node', CLI, '--model', 'opus'])).toBe(1);
    expect(entryPoint(['/usr/bin/node', '--max-old-space-size=4096', '-r', './trace.js', CLI])).toBe(4);
    expect(entryPoint(['node', '--', CLI])).toBe(2);
    expect(entryPoint(['bun', 'run', CLI])).toBe(2);
    expect(entryPoint(['node', '-e', 'require("x")'])).toBe(-1);
    expect(entryPoint(['node', '--inspect'])).toBe(-1);
  });

  it('a job of `node …/cli.js` gets its hook settings after cli.js, not as options of node', async () => {
    const said: string[] = [];
    const word = await agentsOwnWord({ argv: ['node', '--no-warnings', CLI, '--model', 'opus'], cwd: dir, cols: 120, rows: 40 }, {}, dir, (l) => said.push(l), () => undefined);
    const argv = word.launch.argv;
    expect(argv.slice(0, 3)).toEqual(['node', '--no-warnings', CLI]);
    expect(argv[3]).toBe('--settings');
    expect(argv.slice(-2)).toEqual(['--model', 'opus']);
    word.stop();
    expect(said).toEqual([]);
  });
});
