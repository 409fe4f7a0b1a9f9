import { describe, expect, it } from 'vitest';
import { detectScreen, explainScreen } from '../../../src/agents/index.js';
import { explain, explanationText, MAX_PASSED } from '../../../src/detect/explain.js';
import type { RuleSet } from '../../../src/detect/types.js';
import type { Screen } from '../../../src/shared/types.js';
import screens from '../../fixtures/screens.json';
import versions from '../../fixtures/screens/versions/claude.json';

/** A small agent, its rules named as the registry names them. */
const SET: RuleSet = {
  fallback: 'shell',
  agents: [
    {
      id: 'kite',
      markers: [/^KITE v\d/, /^◆ /],
      titleMarkers: [/^kite:/],
      lines: [
        { name: 'kite/approval', state: 'waiting', test: /^Let kite run .*\? \[y\/n\]$/ },
        { name: 'kite/spinner', state: 'working', test: /◆ [A-Z][a-z]+ing…/ },
        { name: 'kite/done', state: 'stopped', test: /^◆ Flew for \d+s$/, completion: true },
        { name: 'kite/any-diamond', state: 'idle', test: /^◆ / },
        { name: 'kite/prompt', state: 'idle', test: /^> /, hint: true },
      ],
      titles: [{ name: 'kite/title-busy', state: 'working', test: /^kite: busy/ }],
      prompt: { line: /^> (\S.*)$/, answered: /^◆ / },
    },
  ],
};

const screen = (lines: string[], title = ''): Screen => ({ lines, title });
const BOX = ['────────────────────────────', '> ', '────────────────────────────'];

describe('explain: the rule that decided and its line', () => {
  it('names the rule, its row (from 1) and its line; the JSON names the rule too', () => {
    const e = explain(SET, screen(['KITE v1', '> fly', '◆ Soaring… 3s', ...BOX]));
    expect(e).toMatchObject({
      agent: 'kite',
      state: 'working',
      rule: 'kite/spinner',
      decided: { by: 'rule', rule: 'kite/spinner', row: 3, line: '◆ Soaring… 3s' },
    });
    expect(e.turn).toEqual({ from: 2, box: [5, 5] });
  });
  it('says one decision: a rule that decided is no fallback too', () => {
    const text = explanationText(explain(SET, screen(['KITE v1', '> fly', '◆ Soaring… 3s'])));
    expect(text.filter((l) => l.startsWith('decided:'))).toEqual(['decided: rule kite/spinner, row 3: ◆ Soaring… 3s']);
    expect(text.join('\n')).not.toContain('no agent runs');
  });
  it('a question over a choice menu is the shape that decided', () => {
    const e = explain(SET, screen(['KITE v1', '> fly', '◆ Ready to go', 'Which way?', '❯ 1. North', '  2. South']));
    expect(e).toMatchObject({
      state: 'waiting',
      rule: 'shape/choice-menu',
      decided: { by: 'shape', row: 4, line: 'Which way?' },
    });
    const yn = explain(SET, screen(['KITE v1', '> fly', 'Go on anyway? (y/n)']));
    expect(yn).toMatchObject({ state: 'waiting', decided: { by: 'shape', rule: 'shape/yes-no', row: 3 } });
  });
  it('the title that decided', () => {
    const e = explain(SET, screen(['KITE v1', '> fly', '◆ Some answer'], 'kite: busy'));
    expect(e).toMatchObject({
      state: 'working',
      decided: { by: 'title', rule: 'kite/title-busy', line: 'kite: busy' },
    });
    expect(e.passed).toContainEqual(
      expect.objectContaining({
        rule: 'kite/any-diamond',
        row: 3,
        why: 'the title (kite/title-busy) tells what happens now',
      }),
    );
  });
  it('no rule: the state read before is kept, and it says so', () => {
    const e = explain(SET, screen(['KITE v1', 'nothing known']), { agent: 'kite', state: 'working' });
    expect(e).toMatchObject({ state: 'working', decided: { by: 'kept' } });
    expect(e.rule).toBeUndefined();
    expect(explanationText(e)).toContain('decided: no rule matched: the state read before is kept (Idle at first)');
  });
});

describe('explain: how the agent was told', () => {
  it.each([
    ['told', explain(SET, screen(['anything']), undefined, 'kite'), { agent: 'kite', by: 'told' }],
    [
      'a marker on a row',
      explain(SET, screen(['x', 'KITE v2', 'y'])),
      { agent: 'kite', by: 'marker', row: 2, marker: '^KITE v\\d' },
    ],
    [
      'a marker in the title',
      explain(SET, screen(['x'], 'kite: idle')),
      { agent: 'kite', by: 'title-marker', marker: '^kite:' },
    ],
    [
      'read before, no marker now',
      explain(SET, screen(['plain text']), { agent: 'kite', state: 'idle' }),
      { agent: 'kite', by: 'previous' },
    ],
    ['nothing', explain(SET, screen(['plain text'])), { agent: 'shell', by: 'none' }],
    [
      'the shell prompt back',
      explain(SET, screen(['KITE v1', 'user@box:~$ ']), { agent: 'kite', state: 'idle' }),
      { agent: 'shell', by: 'shell-prompt', row: 2 },
    ],
  ])('%s', (_what, e, identity) => {
    expect(e.identity).toEqual(identity);
  });
});

describe('explain: the rules passed over, with why', () => {
  it('a spinner in an earlier turn, above the current prompt', () => {
    const e = explain(
      SET,
      screen(['KITE v1', '> first', '◆ Soaring… 2s', '◆ Flew for 2s', '> second', '◆ Landed here']),
    );
    expect(e.decided).toMatchObject({ rule: 'kite/any-diamond', row: 6 });
    expect(e.passed).toContainEqual(
      expect.objectContaining({ rule: 'kite/spinner', row: 3, why: "above the current turn: an earlier turn's" }),
    );
  });
  it('a spinner pasted into the input box: a draft tells nothing', () => {
    const e = explain(
      SET,
      screen(['KITE v1', '> fly', '◆ Flew for 3s', BOX[0]!, '> a draft', '  ◆ Gliding… pasted', BOX[2]!]),
    );
    expect(e).toMatchObject({ state: 'stopped', rule: 'kite/done', turn: { box: [5, 6] } });
    expect(e.passed).toContainEqual(
      expect.objectContaining({ rule: 'kite/spinner', row: 6, why: 'inside the input box: a draft tells nothing' }),
    );
  });
  it("Claude Code's spinner row above the latest block over its input box: a frame left behind", () => {
    const rule = '─'.repeat(40);
    const e = explainScreen(
      screen([
        '✶ Reticulating… (51s)',
        '  ⎿ Tip: one',
        '',
        '● All checks pass.',
        '  - tests: 512 passed',
        rule,
        '❯ ',
        rule,
      ]),
      undefined,
      'claude',
    );
    expect(e).toMatchObject({ state: 'idle', rule: 'claude/prompt' });
    expect(e.passed).toContainEqual(
      expect.objectContaining({
        rule: 'shared/spinner',
        row: 1,
        why: 'above the latest block over the input box: a frame left behind',
      }),
    );
  });
  it('a rule that matched a line another rule took first', () => {
    const e = explain(SET, screen(['KITE v1', '> fly', '◆ Soaring… 3s']));
    expect(e.passed).toContainEqual(
      expect.objectContaining({ rule: 'kite/any-diamond', row: 3, why: 'kite/spinner matched this line first' }),
    );
  });
  it('a hint under an event, an older event under a question', () => {
    const e = explain(SET, screen(['KITE v1', '> fly', '◆ Soaring… 3s', 'Let kite run rm -rf /? [y/n]', '> ']));
    expect(e.decided).toMatchObject({ rule: 'kite/approval', row: 4 });
    expect(e.passed).toContainEqual(
      expect.objectContaining({
        rule: 'kite/prompt',
        row: 5,
        why: 'a hint: it tells only when no line of an event does',
      }),
    );
    expect(e.passed).toContainEqual(
      expect.objectContaining({ rule: 'kite/spinner', row: 3, why: 'a question waits: it comes first' }),
    );
    // The yes/no shape saw the same question.
    expect(e.passed).toContainEqual(expect.objectContaining({ rule: 'shape/yes-no', row: 4 }));
  });
  it('at most MAX_PASSED, newest first, and no control character from the screen', () => {
    const lines = ['KITE v1', '> fly', ...Array.from({ length: 140 }, (_, i) => `◆ Soaring… ${i}s \u001b[31m\u0007`)];
    const e = explain(SET, screen(lines));
    expect(e.passed.length).toBe(MAX_PASSED);
    expect(e.passed[0]!.row).toBeGreaterThan(e.passed[MAX_PASSED - 1]!.row!);
    for (const line of explanationText(e)) expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
  });
});

describe('explain: the real agents', () => {
  it('a Claude Code 2.0.34 approval: its dialog rule, the older words passed over', () => {
    const f = versions['cc2034-bash-approval'];
    const e = explainScreen(screen(f.lines, f.title));
    expect(e).toMatchObject({ agent: 'claude', state: 'waiting', identity: { by: 'marker' } });
    expect(e.rule).toMatch(/^(?:claude|shared|shape)\//);
    expect(explanationText(e)[2]).toMatch(/^decided: (?:rule|shape) \S+, row \d+: /);
  });
  it('Claude Code 2.1.332’s session picker: it decides wherever it stands, and says so of a spinner under it', () => {
    const e = explainScreen(
      screen(['Claude Code', '❯ go', '  ╭──────────╮', '  │ ⌕ Search… │', '  ╰──────────╯', '✽ Tempering…'], ''),
    );
    expect(e).toMatchObject({ state: 'idle', rule: 'claude/session-picker', decided: { row: 4 } });
    expect(e.passed).toContainEqual(
      expect.objectContaining({
        row: 6,
        state: 'working',
        why: 'a screen drawn over the agent (claude/session-picker) decides wherever it stands',
      }),
    );
    const f = versions['cc21332-resume-picker-queued'];
    expect(explainScreen(screen(f.lines, f.title))).toMatchObject({ state: 'idle', rule: 'claude/session-picker' });
  });
  it('agrees with detect on every screen fixture', () => {
    for (const [name, f] of Object.entries(screens as Record<string, { title: string; lines: string[] }>)) {
      const e = explainScreen(screen(f.lines, f.title));
      const d = detectScreen(screen(f.lines, f.title));
      expect([name, e.agent, e.state, e.rule]).toEqual([name, d.agent, d.state, d.rule]);
      expect(e.decided.rule).toBe(e.rule);
    }
  });
});
