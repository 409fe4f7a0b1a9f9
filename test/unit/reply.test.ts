// When a reply may go to an agent, and what stands typed in an agent's input line: the rules the
// picker's replies (terminals and jobs) follow, on the agents' real screens.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { draftOf } from '../../src/agents/index.js';
import type { AgentId } from '../../src/shared/types.js';
import { throttled } from '../../src/shared/debounce.js';
import { parseDispatchLine } from '../../src/fleet/dispatch-line.js';
import { editorEntry, parseSummary } from '../../src/fleet/editors.js';
import { pendingWord, replyVerdict } from '../../src/agents/reply-verdict.js';
import screens from '../fixtures/screens.json';

const of = (name: keyof typeof screens): { agent: AgentId; lines: string[] } => {
  const s = screens[name] as { lines: string[]; expect: { agent: AgentId } };
  return { agent: s.expect.agent, lines: s.lines };
};
/** A screen with `text` typed in its input line, as Claude Code and Codex draw it. */
const typed = (name: keyof typeof screens, text: string): { agent: AgentId; lines: string[] } => {
  const s = of(name);
  return { ...s, lines: s.lines.map((l) => (/^(❯|›) ?(Ask Codex to do anything)?$/.test(l) ? `${l[0]} ${text}` : l)) };
};

/** OpenCode's finished turn with `text` typed in the first row of its input box. */
const typedOpenCode = (text: string): { agent: AgentId; lines: string[] } => {
  const s = of('opencode-real-done');
  // The input box: `┃`, the text's row, `┃`, `┃  Build · <model> <provider>`.
  const agentRow = s.lines.map((l) => /^\s*┃  Build · /.test(l)).lastIndexOf(true);
  const box = agentRow - 2;
  return { ...s, lines: s.lines.map((l, i) => (i === box ? `  ┃  ${text}` : l)) };
};

describe('a draft in the input line', () => {
  it.each<[string, { agent: AgentId; lines: string[] }, string | undefined]>([
    ['Claude Code idle, nothing typed', of('claude-real-idle'), undefined],
    ['Claude Code idle, a draft', typed('claude-real-idle', 'fix the tests'), 'fix the tests'],
    ['Claude Code after a turn: the prompt above its answer is none', of('claude-real-stopped'), undefined],
    ['Claude Code working', of('claude-real-working'), undefined],
    ['Claude Code on an approval (its menu choices are indented)', of('claude-real-approval'), undefined],
    ['Codex idle: its placeholder is none', of('codex-real-idle'), undefined],
    ['Codex idle, a draft', typed('codex-real-idle', 'explain this'), 'explain this'],
    ['Codex working', of('codex-real-working'), undefined],
    ['Codex after a turn', of('codex-real-stopped'), undefined],
    ['OpenCode after a turn: the box of the prompt above its answer is none', of('opencode-real-done'), undefined],
    ['OpenCode after a turn, a draft in its input box', typedOpenCode('fix the tests'), 'fix the tests'],
    ['OpenCode working (an older layout: `Build  <model>` is no draft)', of('opencode-working'), undefined],
    ['OpenCode on an approval', of('opencode-real-shell-approval'), undefined],
    ['Amp at start, a draft in its input box (the real screen: `│ x │`)', of('amp-real-ctrl-c'), 'x'],
    ['Amp at start, nothing typed', of('amp-real-idle'), undefined],
    ['Amp working (the prompt it echoed is none)', of('amp-real-working'), undefined],
    ['Amp after a turn', of('amp-real-done'), undefined],
    ['Amp on an approval (the box’s `‣ Allow Once` is none)', of('amp-real-shell-approval'), undefined],
  ])('%s', (_name, screen, draft) => {
    expect(draftOf(screen.agent, screen.lines)).toBe(draft);
  });

  it('an agent without a prompt rule has none; a blank screen has none', () => {
    expect(draftOf('shell', ['$ something'])).toBeUndefined();
    expect(draftOf('claude', [])).toBeUndefined();
    expect(draftOf('claude', Array(150).fill(''))).toBeUndefined();
  });
});

describe('when a reply goes', () => {
  it('now to an agent that is not working; queued while it works; held while a draft stands or the user types', () => {
    for (const state of ['idle', 'waiting', 'stopped', 'completed', 'failed'] as const) expect(replyVerdict({ state })).toBe('send');
    expect(replyVerdict({ state: 'working' })).toBe('queue');
    expect(replyVerdict({ state: 'idle', draft: 'half a thought' })).toBe('hold-draft');
    expect(replyVerdict({ state: 'working', draft: 'x' })).toBe('hold-draft');
    expect(replyVerdict({ state: 'idle', typing: true })).toBe('hold-typing');
    expect(replyVerdict({ state: 'idle', draft: '' })).toBe('send');
    expect(replyVerdict({ state: 'exited', typing: true })).toBe('refuse');
  });

  it('says why it waits in the row', () => {
    expect(pendingWord('queue')).toBe('queued');
    expect(pendingWord('hold-draft')).toBe('held: draft');
    expect(pendingWord('hold-typing')).toBe('held: Terminal mode');
    expect(pendingWord('send')).toBe('');
  });
});

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

describe("another Neovim's summary", () => {
  it('keeps checked fields only, bounded, and the server address to reach it', () => {
    const summary = parseSummary({
      pid: 4711,
      pidStart: '1',
      server: '/run/nvim.sock',
      agentPids: [1, 'x'],
      terminals: [
        { id: 'term:3', agent: 'codex', state: 'waiting', name: 'n'.repeat(500), detail: 7, since: 'soon', needs: { question: 'Proceed?', options: ['Yes', 2, 'No'] }, cwd: '/p', evil: 'x', confirmed: true },
        { id: 'term:4', agent: 'rm -rf', state: 'idle' },
        { id: 'term:5', agent: 'claude', state: 'sleeping' },
        { id: '../x', agent: 'claude', state: 'idle' },
      ],
    })!;
    expect(summary.terminals).toHaveLength(1);
    const e = editorEntry(summary, summary.terminals[0]!);
    expect(e).toEqual({
      id: 'nvim:4711:3', kind: 'editor', name: 'n'.repeat(120), named: false, intent: '', agent: 'codex', state: 'waiting', source: 'pty-scrape', confirmed: false, since: 0, cwd: '/p', detail: '',
      needs: { question: 'Proceed?', options: ['Yes', 'No'] }, where: 'nvim 4711', pinned: false, order: 0, pending: '', server: '/run/nvim.sock', attach: [],
      buf: null, short: '', pid: 4711, peerBuf: 3, tty: '', exit: null, interrupted: false,
    });
    expect(summary.agentPids).toEqual([1]);
  });
});

describe('the jobs folder read on a change', () => {
  afterEach(() => vi.useRealTimers());
  it('reads at once, and once more after the window (a change the watcher dropped is seen)', () => {
    vi.useFakeTimers();
    let runs = 0;
    const t = throttled(() => runs++, 100);
    t.soon();
    expect(runs).toBe(1);
    t.soon();
    t.soon();
    expect(runs).toBe(1);
    vi.advanceTimersByTime(100);
    expect(runs).toBe(2);
    vi.advanceTimersByTime(1000);
    expect(runs).toBe(2);
    t.soon();
    expect(runs).toBe(3);
    t.cancel();
    vi.advanceTimersByTime(1000);
    expect(runs).toBe(3);
  });
});
