// The picker's input line, read by the Node side: `[@agent] [--worktree[=BRANCH]] what to do`.
import { describe, expect, it } from 'vitest';
import { parseDispatchLine } from '../../../src/fleet/dispatch-line.js';

describe("the picker's input line", () => {
  it('[@agent] [--worktree[=BRANCH]] intent', () => {
    expect(parseDispatchLine('fix the parser', 'claude')).toEqual({ agent: 'claude', intent: 'fix the parser' });
    expect(parseDispatchLine('@codex --worktree fix  it', 'claude')).toEqual({
      agent: 'codex',
      worktree: {},
      intent: 'fix  it',
    });
    expect(parseDispatchLine('-w @gemini x', 'claude')).toEqual({ agent: 'gemini', worktree: {}, intent: 'x' });
    expect(parseDispatchLine('--worktree=feat/a do it', 'shell')).toEqual({
      agent: 'shell',
      worktree: { branch: 'feat/a' },
      intent: 'do it',
    });
    // Only leading words are options: the same words later are the intent's.
    expect(parseDispatchLine('explain @codex and --worktree', 'claude')).toEqual({
      agent: 'claude',
      intent: 'explain @codex and --worktree',
    });
  });

  it('-n NAME names the job, as mado --bg -n does: one word, or words in quotes', () => {
    expect(parseDispatchLine('-n parser fix the parser', 'claude')).toEqual({
      agent: 'claude',
      name: 'parser',
      intent: 'fix the parser',
    });
    expect(parseDispatchLine('@codex -n "parser fix" --worktree fix it', 'claude')).toEqual({
      agent: 'codex',
      name: 'parser fix',
      worktree: {},
      intent: 'fix it',
    });
    expect(parseDispatchLine("--name 'café run' go", 'claude')).toEqual({
      agent: 'claude',
      name: 'café run',
      intent: 'go',
    });
    expect(parseDispatchLine('--name=solo go', 'claude')).toEqual({ agent: 'claude', name: 'solo', intent: 'go' });
    expect(parseDispatchLine('-n', 'claude')).toMatchObject({
      error: expect.stringContaining("-n needs the job's name"),
    });
    expect(parseDispatchLine('-n "" go', 'claude')).toMatchObject({
      error: expect.stringContaining("-n needs the job's name"),
    });
    expect(parseDispatchLine('-n --worktree go', 'claude')).toMatchObject({
      error: expect.stringContaining("-n needs the job's name"),
    });
    expect(parseDispatchLine(`-n "a\x1b]0;x\x07" go`, 'claude')).toMatchObject({
      error: expect.stringContaining('control character'),
    });
    expect(parseDispatchLine(`-n ${'x'.repeat(201)} go`, 'claude')).toMatchObject({
      error: expect.stringContaining('at most 200'),
    });
  });

  it('refuses what is no job, saying why', () => {
    expect(parseDispatchLine('   ', 'claude')).toEqual({ error: 'say what the new agent should do' });
    expect(parseDispatchLine('@codex', 'claude')).toEqual({ error: 'say what the new agent should do' });
    expect(parseDispatchLine('@../../x go', 'claude')).toMatchObject({
      error: expect.stringContaining('names no agent'),
    });
    expect(parseDispatchLine('@--help go', 'claude')).toMatchObject({
      error: expect.stringContaining('names no agent'),
    });
    expect(parseDispatchLine('--worktree=--set-upstream-to=x go', 'claude')).toMatchObject({
      error: expect.stringContaining('needs a branch name'),
    });
    expect(parseDispatchLine('x'.repeat(130 * 1024), 'claude')).toMatchObject({
      error: expect.stringContaining('120 KiB'),
    });
    expect(parseDispatchLine('a\0b', 'claude')).toEqual({ agent: 'claude', intent: 'ab' });
  });
});
