// The picker's input line, read by the Node side: `[@agent] [--worktree[=BRANCH]] what to do`.
import { describe, expect, it } from 'vitest';
import { parseDispatchLine } from '../../../src/fleet/dispatch-line.js';

describe("the picker's input line", () => {
  it('[@agent] [--worktree[=BRANCH]] intent', () => {
    expect(parseDispatchLine('fix the parser', 'claude')).toEqual({ agent: 'claude', intent: 'fix the parser' });
    expect(parseDispatchLine('@codex --worktree fix  it', 'claude')).toEqual({ agent: 'codex', worktree: {}, intent: 'fix  it' });
    expect(parseDispatchLine('-w @gemini x', 'claude')).toEqual({ agent: 'gemini', worktree: {}, intent: 'x' });
    expect(parseDispatchLine('--worktree=feat/a do it', 'shell')).toEqual({ agent: 'shell', worktree: { branch: 'feat/a' }, intent: 'do it' });
    // Only leading words are options: the same words later are the intent's.
    expect(parseDispatchLine('explain @codex and --worktree', 'claude')).toEqual({ agent: 'claude', intent: 'explain @codex and --worktree' });
  });

  it('refuses what is no job, saying why', () => {
    expect(parseDispatchLine('   ', 'claude')).toEqual({ error: 'say what the new agent should do' });
    expect(parseDispatchLine('@codex', 'claude')).toEqual({ error: 'say what the new agent should do' });
    expect(parseDispatchLine('@../../x go', 'claude')).toMatchObject({ error: expect.stringContaining('names no agent') });
    expect(parseDispatchLine('@--help go', 'claude')).toMatchObject({ error: expect.stringContaining('names no agent') });
    expect(parseDispatchLine('--worktree=--set-upstream-to=x go', 'claude')).toMatchObject({ error: expect.stringContaining('needs a branch name') });
    expect(parseDispatchLine('x'.repeat(130 * 1024), 'claude')).toMatchObject({ error: expect.stringContaining('120 KiB') });
    expect(parseDispatchLine('a\0b', 'claude')).toEqual({ agent: 'claude', intent: 'ab' });
  });
});
