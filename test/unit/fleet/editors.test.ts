// Another Neovim's summary, read from a file anyone may have written: checked field by field.
import { describe, expect, it } from 'vitest';
import { editorEntry, parseSummary } from '../../../src/fleet/editors.js';

describe("another Neovim's summary", () => {
  it('keeps checked fields only, bounded, and the server address to reach it', () => {
    const summary = parseSummary({
      pid: 4711,
      pidStart: '1',
      server: '/run/nvim.sock',
      agentPids: [1, 'x'],
      terminals: [
        {
          id: 'term:3',
          agent: 'codex',
          state: 'waiting',
          name: 'n'.repeat(500),
          detail: 7,
          since: 'soon',
          needs: { question: 'Proceed?', options: ['Yes', 2, 'No'] },
          cwd: '/p',
          evil: 'x',
          confirmed: true,
        },
        { id: 'term:4', agent: 'rm -rf', state: 'idle' },
        { id: 'term:5', agent: 'claude', state: 'sleeping' },
        { id: '../x', agent: 'claude', state: 'idle' },
      ],
    })!;
    expect(summary.terminals).toHaveLength(1);
    const e = editorEntry(summary, summary.terminals[0]!);
    expect(e).toEqual({
      id: 'nvim:4711:3',
      kind: 'editor',
      name: 'n'.repeat(120),
      named: false,
      intent: '',
      agent: 'codex',
      state: 'waiting',
      source: 'pty-scrape',
      confirmed: false,
      since: 0,
      cwd: '/p',
      detail: '',
      needs: { question: 'Proceed?', options: ['Yes', 'No'] },
      where: 'nvim 4711',
      pinned: false,
      order: 0,
      pending: '',
      server: '/run/nvim.sock',
      attach: [],
      buf: null,
      short: '',
      host: '',
      pid: 4711,
      peerBuf: 3,
      tty: '',
      exit: null,
      interrupted: false,
      shows: '',
      turns: 0,
      changed: null,
      usage: null,
      ended: false,
    });
    expect(summary.agentPids).toEqual([1]);
  });
  it("keeps a terminal's usage only when it is one: counts, a plain model name, bounded tables", () => {
    const spend = { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0.01 };
    const usage = {
      ...spend,
      model: 'claude-sonnet-4-5',
      contextUsedPct: 12,
      turn: spend,
      subAgents: null,
      daily: [{ day: '2026-12-06', model: 'claude-sonnet-4-5', ...spend }],
      overBudget: ['session'],
    };
    const bad = [
      { ...usage, inputTokens: -1 },
      { ...usage, outputTokens: 1e308 },
      { ...usage, model: 'evil\x1b[2J' },
      { ...usage, contextUsedPct: 101 },
      { ...usage, daily: [{ day: 'not a day', model: 'm', ...spend }] },
      { ...usage, turn: { ...spend, costUsd: 'free' } },
      { ...usage, overBudget: ['weekly'] },
      'lots',
    ];
    const summary = parseSummary({
      pid: 1,
      pidStart: '1',
      server: '',
      agentPids: [],
      terminals: [usage, ...bad].map((u, i) => ({ id: `term:${i + 1}`, agent: 'claude', state: 'idle', usage: u })),
    })!;
    const got = summary.terminals.map((t) => editorEntry(summary, t).usage);
    expect(got[0]).toEqual(usage);
    expect(got.slice(1)).toEqual(bad.map(() => null));
  });
  it("keeps a source that is the agent's own word (its event stream, its hooks, its notifications): confirmed there too", () => {
    const summary = parseSummary({
      pid: 1,
      pidStart: '1',
      server: '',
      agentPids: [],
      terminals: ['event-stream', 'hook', 'notification', 'made-up'].map((source, i) => ({
        id: `term:${i + 1}`,
        agent: 'opencode',
        state: 'waiting',
        source,
      })),
    })!;
    expect(summary.terminals.map((t) => editorEntry(summary, t)).map((e) => [e.source, e.confirmed])).toEqual([
      ['event-stream', true],
      ['hook', true],
      ['notification', true],
      ['pty-scrape', false],
    ]);
  });
});
