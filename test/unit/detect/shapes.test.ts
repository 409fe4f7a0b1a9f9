// The shapes every agent's screen shares: a question over a choice menu waits whatever its words;
// a numbered list in an answer does not; what stands in the input box decides nothing.
import { describe, expect, it } from 'vitest';
import { detectScreen, RULESET } from '../../../src/agents/index.js';
import { SPINNER } from '../../../src/detect/common.js';
import { choiceMenu, inputBoxRows } from '../../../src/detect/shapes.js';

const rule = '─'.repeat(60);
const menu = (lines: string[]) => choiceMenu(lines, 0, lines.length - 1);

describe('a question over a choice menu', () => {
  it.each([
    [
      'an edit approval in its own words',
      ['Do you want to create new.txt?', '❯ 1. Yes', '  2. Yes, allow all edits during this session', '  3. No'],
    ],
    [
      'a plan-mode exit with three choices',
      [
        'Would you like to proceed?',
        '',
        '❯ 1. Yes, and auto-accept edits',
        '  2. Yes, and manually approve edits',
        '  3. No, keep planning',
        '',
        'ctrl-g to edit plan in vi',
      ],
    ],
    [
      'in capitals, in a frame',
      ['│ ALLOW THIS TOOL TO RUN?  │', '│ › 1. YES                 │', '│   2. NO                  │'],
    ],
    [
      'a dialog whose footer offers Escape, its question far above',
      ['Trust this folder', 'It may run code.', '', '▸ 1. Trust', '  2. Quit', '', 'Enter to confirm · Esc to exit'],
    ],
    [
      'a choice wrapped over two rows',
      ['Run it?', '  1. Yes', '❯ 2. Yes, and do not ask again for commands in', '  /a/long/folder', '  3. No'],
    ],
    ['a y/n prompt', ['Apply patch to src/a.ts? (y/n)']],
    ['a [Y/n] prompt', ['Continue anyway? [Y/n]']],
  ])('%s is a menu', (_name, lines) => {
    expect(menu(lines)).toBeDefined();
  });

  it.each([
    [
      'prose that mentions a question and yes',
      ['● Would you like me to add tests? Say yes and I will.', '', rule, '> ', rule],
    ],
    [
      'a numbered list in an answer, no cursor',
      ['● Which of these do you want?', '  1. Red', '  2. Blue', '', rule, '> ', rule],
    ],
    [
      'a numbered list with answer text after it',
      ['Options?', '❯ 1. one', '  2. two', 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
    ],
    ['one choice alone', ['Proceed?', '❯ 1. Yes']],
    ['choices that do not start at 1', ['Which?', '❯ 3. c', '  4. d']],
    ['y/n in a sentence of an answer, higher up', ['the flag takes (y/n) values', 'and more', 'text', 'here']],
  ])('%s is none', (_name, lines) => {
    expect(menu(lines)).toBeUndefined();
  });

  it('waits whatever agent runs, and reads its question as the detail', () => {
    const d = detectScreen({
      lines: [
        'Claude Code',
        '> go',
        '● Write(a.txt)',
        rule,
        ' Do you want to overwrite a.txt?',
        ' ❯ 1. Yes',
        '   2. No',
      ],
      title: '',
    });
    expect(d).toMatchObject({ agent: 'claude', state: 'waiting', detail: 'Do you want to overwrite a.txt?' });
  });
});

describe('the input box', () => {
  it('is the rows between the two borders at the bottom whose first row is an input line', () => {
    expect(inputBoxRows(['x', rule, '> fix it', rule, '  ? for shortcuts'], 4)).toEqual([2, 2]);
    expect(inputBoxRows([`╭${rule}╮`, '│ > fix it │', `╰${rule}╯`], 2)).toEqual([1, 1]);
    // A dialog's box or an error's has no input line: it is none.
    expect(inputBoxRows([`╭${rule}╮`, '│ Model Provider Overloaded │', '│ ‣ Retry │', `╰${rule}╯`], 3)).toBeUndefined();
    expect(inputBoxRows(['just text'], 0)).toBeUndefined();
  });

  it('a draft that is a numbered list under a question of the answer is no menu', () => {
    const top = `╭${rule}╮`;
    const bottom = `╰${rule}╯`;
    const lines = [
      '> plan it',
      '● Which should I do first?',
      '',
      top,
      '│ > 1. add the tests    │',
      '│   2. fix the lint     │',
      bottom,
      '  ? for shortcuts',
    ];
    expect(choiceMenu(lines, 0, lines.length - 1, inputBoxRows(lines, lines.length - 1))).toBeUndefined();
    expect(detectScreen({ lines: ['Claude Code', ...lines], title: '' }, undefined, 'claude').state).toBe('idle');
  });

  it('a draft that holds a spinner or an interrupt hint decides nothing: the screen stays idle', () => {
    const idle = ['Claude Code', '> earlier', '● done', '', rule];
    for (const draft of ['✶ Baking… (3s · esc to interrupt)', 'Do you want to proceed?', '⎿  Interrupted by user']) {
      const d = detectScreen({ lines: [...idle, `> ${draft}`, rule, '  ? for shortcuts'], title: '' });
      expect({ draft, state: d.state }).toEqual({ draft, state: 'idle' });
    }
  });
});

describe('a spinner row', () => {
  const agents = RULESET.agents.map((r) => r.id);
  it.each(agents)(
    'is Working for %s whatever follows its verb (a task, a duration, tokens, other hint words)',
    (agent) => {
      for (const row of [
        '⠹ Compiling… the parser module (12s · ↓ 1.2k tokens)',
        '✶ Refactoring... src/a.ts — 3m 2s',
        '◐ Searching… press ctrl+c to stop',
      ]) {
        const d = detectScreen({ lines: ['earlier output', row, '', rule, '> ', rule], title: '' }, undefined, agent);
        expect([agent, row, d.state]).toEqual([agent, row, 'working']);
      }
    },
  );
  it.each([
    ['a verb in prose, no glyph', 'Adding tests… is what I would do next'],
    ['an answer item, not a spinner glyph', '• Updating the docs...'],
    ['a past tense', '✻ Baked… for a while'],
    ['no ellipsis', '⠹ Compiling the parser'],
  ])('%s is none', (_name, row) => {
    expect(SPINNER.test(row)).toBe(false);
  });
});

describe('a dialog that holds the screen', () => {
  const footer = '  Enter to continue · Esc to cancel';
  it('waits when its last row offers Enter to go on and Esc to leave, with no input box under it', () => {
    const hit = menu([
      '❯ now please write',
      '',
      rule,
      "  We're changing auto mode.",
      '',
      '  It works for now.',
      '',
      footer,
    ]);
    expect(hit).toEqual({ shape: 'shape/dialog', row: 3, line: "We're changing auto mode." });
  });
  it('does not when the footer is in an answer above the input box, or offers one key only', () => {
    const lines = ['● Press Enter to continue · Esc to cancel, it says', '', rule, '> ', rule];
    expect(choiceMenu(lines, 0, lines.length - 1, inputBoxRows(lines, lines.length - 1))).toBeUndefined();
    expect(menu(['some text', '  Enter to continue'])).toBeUndefined();
  });
});
