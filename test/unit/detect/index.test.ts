import { describe, expect, it } from 'vitest';
import { detectScreen as detect, identifyScreen as identify } from '../../../src/agents/index.js';
import { COMPLETION } from '../../../src/detect/index.js';
import type { AgentId, AgentState, Screen } from '../../../src/shared/types.js';
import screens from '../../fixtures/screens.json';

interface Fixture {
  title: string;
  lines: string[];
  expect: { agent: AgentId; state: AgentState };
  note?: string;
}
const fixtures = screens as Record<string, Fixture>;

const screen = (text: string, title = ''): Screen => ({ lines: text.split('\n'), title });

describe('4a: identity markers of the specification', () => {
  it.each([
    ['❯ (U+276F)', 'some output\n❯ '],
    ['✽ (U+273D)', '✽ something'],
    ['⏺ (U+23FA)', '⏺ Answer text'],
    ['Claude Code', 'Welcome to Claude Code'],
  ])('Claude Code by %s', (_name, text) => {
    expect(identify(screen(text))).toBe('claude');
  });

  it.each([
    ['OpenAI Codex', 'OpenAI Codex'],
    ['codex>', 'codex> run'],
    ['openai/codex', 'see github.com/openai/codex'],
    ['codex v[0-9]', 'codex v0.171.0'],
    ['> _ OpenAI Codex', '> _ OpenAI Codex'],
    ['codex --dangerously (any case)', 'CODEX --DANGEROUSLY-bypass'],
    ['codex...fast (any case)', 'Codex runs Fast'],
    ['gpt-[0-9.]+ x?high', 'model: gpt-5.1 xhigh'],
  ])('Codex by %s', (_name, text) => {
    expect(identify(screen(text))).toBe('codex');
  });

  it('a screen without markers is a shell', () => {
    expect(detect(screen('make: Nothing to be done for all.\nbuild finished')).agent).toBe('shell');
  });
});

describe('4a: states of the specification', () => {
  const claude = (body: string): Screen => screen(`Claude Code\n${body}`);

  it('esc to interrupt is Working', () => {
    expect(detect(claude('  (esc to interrupt)')).state).toBe('working');
  });
  it('a footer that says esc to interrupt tells Working, and the spinner row above it is the detail (not the footer); the idle footer says idle', () => {
    // Claude Code 2.1.332 at work, as a job's screen read it.
    const f = fixtures['claude-332-working']!;
    expect(detect({ lines: f.lines, title: f.title })).toMatchObject({ state: 'working', detail: '✢ Noodling…' });
    // With no spinner row in reach, the footer says only that it works.
    expect(
      detect(claude('❯ go\n● Reading the parser\n\n  ⏵⏵ auto mode on (shift+tab to cycle) · esc to interrupt')),
    ).toMatchObject({ state: 'working', detail: 'working' });
    // Nor is the idle footer a detail worth showing.
    expect(detect(claude('❯ \n  ? for shortcuts'))).toMatchObject({ state: 'idle', detail: 'idle' });
    // An older spinner row that says it itself is its own detail.
    expect(detect(claude('✶ Baking… (3s · esc to interrupt)'))).toMatchObject({
      state: 'working',
      detail: '✶ Baking… (3s · esc to interrupt)',
    });
  });
  it.each(['✽ Thinking…', '⏺ Reading files...'])('%s (glyph and an ellipsis) is Working', (line) => {
    expect(detect(claude(line)).state).toBe('working');
  });
  it('? for shortcuts is Idle', () => {
    expect(detect(claude('  ? for shortcuts')).state).toBe('idle');
  });
  it.each([
    'Allow once',
    'Allow always',
    'Deny',
    'Do you want to proceed?',
    'Overwrite? (y/n)',
    'This command requires approval',
  ])('%s is Waiting', (line) => {
    expect(detect(claude(line)).state).toBe('waiting');
  });
  it.each([
    '✽ Worked for 2m 30s',
    '✶ Churned for 1h 2m 3s',
    '· Baked for 45s',
    '* Brewed for 3s',
    'Sautéed for 12s',
    'Cogitated for 1m 5s',
  ])('%s is a completion (Stopped)', (line) => {
    expect(COMPLETION.test(line)).toBe(true);
    const d = detect(claude(line));
    expect(d.state).toBe('stopped');
    expect(d.detail).toBe(line);
    expect(d.completion).toBe(line.slice(line.indexOf(' for ') + 1));
  });
  it.each([
    'The upload Retried for 3s before giving up',
    'It Worked for 2 hours',
    'Paused for 5 minutes',
    '✽ Working for 3s',
  ])('no false completion on prose: %s', (line) => {
    expect(COMPLETION.test(line)).toBe(false);
  });
  it('✻ (U+273B) is in the completion class', () => {
    expect(COMPLETION.test('✻ Baked for 10s')).toBe(true);
  });
});

describe('4b: screens the agents print today', () => {
  it.each(Object.entries(fixtures))('%s', (_name, f) => {
    const d = detect({ lines: f.lines, title: f.title });
    expect({ agent: d.agent, state: d.state }).toEqual(f.expect);
    expect(d.source).toBe('pty-scrape');
  });

  it.each(['·', '✢', '*', '✶', '✻', '✽', '✳'])('Claude Code spinner %s before <Verb>ing… is Working', (glyph) => {
    const d = detect({
      lines: ['Claude Code', '> go', `${glyph} Pondering… (4s · ↓ 12 tokens)`, '─'.repeat(20), '❯ '],
      title: '',
    });
    expect(d.state).toBe('working');
  });

  it('a short Claude Code turn ends without a completion line: the prompt alone is Idle', () => {
    const d = detect(
      { lines: ['Claude Code', '> hi', '● Hello!', '─'.repeat(20), '❯ ', '─'.repeat(20)], title: '✳ Claude Code' },
      { agent: 'claude', state: 'working' },
    );
    expect(d.state).toBe('idle');
  });

  it('only the current turn counts: an old spinner or question above the last prompt decides nothing', () => {
    const rule = '─'.repeat(20);
    const stale = [
      'Claude Code',
      '❯ first',
      '✶ Baking… (3s · esc to interrupt)',
      '❯ second',
      '● Done.',
      rule,
      '❯ ',
      rule,
      '  ? for shortcuts',
    ];
    expect(detect({ lines: stale, title: '' })).toMatchObject({ agent: 'claude', state: 'idle' });
    const oldQuestion = [
      'Claude Code',
      '❯ first',
      ' Do you want to proceed?',
      ' ❯ 1. Yes',
      '   2. No',
      '❯ second',
      '● Done.',
      rule,
      '❯ ',
      rule,
    ];
    expect(detect({ lines: oldQuestion, title: '' }).state).not.toBe('waiting');
    const codex = [
      '>_ OpenAI Codex (v0.171.0)',
      '› first',
      '• Working (3s • esc to interrupt)',
      '› second',
      '• The tests ran.',
      '',
      '› Ask Codex to do anything',
      '  ? for shortcuts',
    ];
    expect(detect({ lines: codex, title: '' })).toMatchObject({ agent: 'codex', state: 'idle' });
    // The live spinner of the current turn still counts, and so does a draft typed below it.
    const live = ['Claude Code', '❯ second', '✶ Baking… (3s · esc to interrupt)', rule, '❯ a draft', rule];
    expect(detect({ lines: live, title: '' }).state).toBe('working');
  });

  it('Claude Code: its session picker decides Idle over a spinner; its search box typed as a draft, or the history search, does not', () => {
    const rule = '─'.repeat(40);
    const box = ['  ╭──────────╮', '  │ ⌕ Search… │', '  ╰──────────╯'];
    expect(detect({ lines: ['Claude Code', '❯ go', ...box, '✽ Tempering…'], title: '' })).toMatchObject({
      state: 'idle',
      rule: 'claude/session-picker',
    });
    const working = ['Claude Code', '❯ go', '✶ Baking… (3s · esc to interrupt)', rule];
    expect(detect({ lines: [...working, '❯ a draft of two lines:', '  ⌕ Search…', rule], title: '' }).state).toBe(
      'working',
    );
    expect(detect({ lines: [...working, '  │ ⌕ Filter history… │'], title: '' }).state).toBe('working');
  });

  it.each(['Thinking', 'Streaming', 'Running Tools'])('Amp %s is Working', (label) => {
    expect(detect({ lines: [' Fix it', ` ∿ ${label}`], title: 'Fix it - amp - ~/proj' }).state).toBe('working');
  });

  it('Claude Code titles: a spinner is Working, ✳ is not', () => {
    const base = fixtures['claude-idle']!;
    expect(detect({ lines: base.lines, title: '◐ Claude Code' }).state).toBe('working');
    expect(detect({ lines: base.lines, title: '⠂ Claude Code' }).state).toBe('working');
    expect(detect({ lines: base.lines, title: '✳ Claude Code' }).state).toBe('idle');
  });

  it('Codex: the Action Required title is Waiting even before the dialog is drawn', () => {
    const base = fixtures['codex-idle']!;
    expect(detect({ lines: base.lines, title: '[ ! ] Action Required | proj' }).state).toBe('waiting');
  });

  it('Gemini titles alone tell the state', () => {
    const lines = ['Gemini CLI'];
    expect(detect({ lines, title: '◇  Ready (proj)' }).state).toBe('idle');
    expect(detect({ lines, title: '✦  Working… (proj)' }).state).toBe('working');
    expect(detect({ lines, title: '✋  Action Required (proj)' }).state).toBe('waiting');
  });

  it('Amp is known by its title', () => {
    expect(identify({ lines: ['some output'], title: '⠋ Fix it - amp - ~/proj' })).toBe('amp');
  });

  it('the detail is the deciding line without box borders', () => {
    const d = detect({ lines: fixtures['gemini-trust']!.lines, title: '' });
    expect(d.detail).toBe('Do you trust the files in this folder?');
  });
});

describe('order: the newest thing on the screen decides', () => {
  const done = '✻ Baked for 10s';
  it('an interrupt below an old completion wins', () => {
    const d = detect(screen(`Claude Code\n${done}\n> poem\n  ⎿  Interrupted · What should Claude do instead?\n❯ `));
    expect(d.state).toBe('failed');
  });
  it('an approval below an old completion wins', () => {
    expect(detect(screen(`Claude Code\n${done}\n Do you want to proceed?\n ❯ 1. Yes`)).state).toBe('waiting');
  });
  it('new work below an old completion wins', () => {
    expect(detect(screen(`Claude Code\n${done}\n> next\n✶ Baking… (2s)`)).state).toBe('working');
  });
  it('a completion below an answered approval wins', () => {
    expect(detect(screen(`Claude Code\n Allow once\n● ok\n${done}\n❯ \n  ? for shortcuts`)).state).toBe('stopped');
  });
  it('a footer hint does not outrank a completion above it', () => {
    expect(detect(screen(`Claude Code\n${done}\n❯ \n  ? for shortcuts`)).state).toBe('stopped');
  });
  it('a dialog over a busy line wins within a few rows of it (farther up, it is an older part of the turn)', () => {
    const busy = '⠏ Thinking about it (esc to cancel, 3s)';
    const near = [' > run the tests', '⠏ Waiting for user confirmation...', '', busy];
    expect(detect({ lines: near, title: '' }, undefined, 'gemini').state).toBe('waiting');
    const far = [' > run the tests', '⠏ Waiting for user confirmation...', ...Array(9).fill('✦ output'), busy];
    expect(detect({ lines: far, title: '' }, undefined, 'gemini').state).toBe('working');
  });
  it('only the screen given counts: an approval scrolled off is not there', () => {
    const rows = fixtures['claude-stopped']!.lines;
    expect(detect({ lines: rows, title: '✳ Claude Code' }).state).toBe('stopped');
  });
});

describe('identity is sticky', () => {
  it('long tool output without markers keeps Claude Code', () => {
    const out = Array.from({ length: 30 }, (_, i) => `test ${i} passed`).join('\n');
    const d = detect(screen(out), { agent: 'claude', state: 'working' });
    expect(d.agent).toBe('claude');
    expect(d.state).toBe('working');
  });
  it('the shell prompt after the agent exits makes it a shell again', () => {
    const f = fixtures['shell-after-claude']!;
    expect(detect({ lines: f.lines, title: f.title }, { agent: 'claude', state: 'stopped' }).agent).toBe('shell');
  });
  it('another agent starting changes the identity', () => {
    const f = fixtures['codex-idle']!;
    expect(detect({ lines: f.lines, title: f.title }, { agent: 'claude', state: 'idle' }).agent).toBe('codex');
  });
  it('a Claude Code screen that mentions Codex stays Claude Code', () => {
    const lines = ['● Codex prints "OpenAI Codex" in its banner.', '✻ Baked for 3s', '❯ ', '  ? for shortcuts'];
    expect(detect({ lines, title: '' }, { agent: 'claude', state: 'working' }).agent).toBe('claude');
  });
  it('the shell prompt counts only on the cursor row', () => {
    const lines = ['Claude Code', 'cost: 100%', '❯ typing'];
    expect(detect({ lines, title: '', cursor: 2 }).agent).toBe('claude');
  });
});

describe('identity from an approval alone (the real screens cut to their menu: no banner, footer or title)', () => {
  it.each([
    ['claude-real-shell-approval', 'Do you want to proceed?', 'claude'],
    ['claude-real-write-approval', 'Do you want to', 'claude'],
    ['claude-real-question', 'Which parser', 'claude'],
    ['codex-real-patch-approval', 'Would you like to make', 'codex'],
    ['codex-real-model-prompt', 'Meet GPT', 'codex'],
    ['codex-real-shell-approval', 'Would you like to run', 'codex'],
    ['codex-real-mcp-approval', 'Field 1/1', 'codex'],
    ['codex-real-question', 'Question 1/1', 'codex'],
    ['gemini-real-approval', 'Allow execution of', 'gemini'],
    ['gemini-real-edit-approval', 'Apply this change?', 'gemini'],
    ['gemini-real-mcp-approval', 'Allow execution of MCP tool', 'gemini'],
    ['gemini-real-question', 'Answer Questions', 'gemini'],
    ['gemini-real-plan-approval', 'Action Required', 'gemini'],
    ['opencode-real-shell-approval', '△ Permission required', 'opencode'],
    ['opencode-real-mcp-approval', '△ Permission required', 'opencode'],
  ] as const)('%s', (name, from, agent) => {
    const lines = fixtures[name]!.lines;
    const menu = lines.slice(lines.findIndex((l) => l.includes(from)));
    expect(menu.length).toBeGreaterThan(1);
    expect(detect({ lines: menu, title: '' })).toMatchObject({ agent, state: 'waiting' });
  });
});

describe('Amp (the real CLI): its approval box alone, and only the current turn', () => {
  const box = (name: string): string[] => {
    const lines = fixtures[name]!.lines;
    const top = lines.findIndex((l) => l.includes('Approval Required'));
    const bottom = lines.findIndex((l) => l.includes('Esc cancel'));
    return lines.slice(top, bottom + 1);
  };
  it.each(['amp-real-shell-approval', 'amp-real-edit-approval'])('%s, cut to its box, is Amp waiting', (name) => {
    expect(box(name).length).toBeGreaterThan(3);
    expect(detect({ lines: box(name), title: '' })).toMatchObject({ agent: 'amp', state: 'waiting' });
  });
  it('an error box alone (Retry, Dismiss) is Amp failed', () => {
    const lines = fixtures['amp-real-error']!.lines.filter(
      (l) => l.startsWith('│') || l.startsWith('╭') || l.startsWith('╰'),
    );
    expect(detect({ lines, title: '' })).toMatchObject({ agent: 'amp', state: 'failed', detail: 'error' });
  });
  it('its border saying Waiting (for the model) is Working, not Waiting', () => {
    const lines = fixtures['amp-real-working']!.lines;
    expect(detect({ lines, title: '' })).toMatchObject({ agent: 'amp', state: 'working' });
  });
  it('an approval of an earlier turn, above the prompt sent since, decides nothing', () => {
    const done = fixtures['amp-real-done']!.lines;
    const input = done.slice(done.findIndex((l) => l.startsWith('╭')));
    const lines = [...box('amp-real-shell-approval'), ' ┃ and now the tests', ' The tests pass.', ...input];
    expect(detect({ lines, title: '' })).toMatchObject({ agent: 'amp', state: 'idle' });
  });
});

describe('a screen that tells no state', () => {
  it('keeps the state read before (Idle at first), and says it was kept', () => {
    // Gemini CLI's banner alone, as it comes up: it names the agent and tells nothing more.
    expect(detect(screen('Gemini CLI v0.61.0'))).toMatchObject({ agent: 'gemini', state: 'idle', kept: true });
    expect(detect(screen('Gemini CLI v0.61.0'), { agent: 'gemini', state: 'working' })).toMatchObject({
      state: 'working',
      kept: true,
    });
    expect(detect(screen(' >   Type your message or @path/to/file\nGemini CLI')).kept).toBeUndefined();
  });
});

describe('a prompt echoed on several lines (a relayed payload, a pasted paragraph)', () => {
  // What stands above the new prompt: an earlier turn, ended by its completion line.
  const claudeDone = fixtures['claude-stopped']!.lines;
  const claudeEarlier = claudeDone.slice(0, claudeDone.findIndex((l) => l.startsWith('✻')) + 1);
  const claudeInput = claudeDone.slice(claudeDone.findIndex((l) => l.startsWith('✻')) + 1);
  const payload = [
    '❯ [mado route writer → reviewer · hop 1/3]',
    '  Review the change in src/parser.ts.',
    '',
    '  Point out bugs, risks and missing tests.',
  ];

  it("starts the turn: the earlier turn's completion line is not this turn's (Claude Code)", () => {
    const under = detect({
      lines: [...claudeEarlier, '', ...payload, '', '● Reading the change.', ...claudeInput],
      title: '',
    });
    expect(under.completion).toBeUndefined();
    expect(under.state).not.toBe('stopped');
    const done = detect({
      lines: [...claudeEarlier, '', ...payload, '', '● No bugs found.', '', '✻ Worked for 3s', ...claudeInput],
      title: '',
    });
    expect(done).toMatchObject({ agent: 'claude', state: 'stopped', completion: 'for 3s' });
  });

  it("starts the turn: the earlier turn's completion line is not this turn's (Codex 0.171.0)", () => {
    const turns = fixtures['codex-real-stopped-turns']!.lines;
    const input = turns.slice(turns.indexOf('› Ask Codex to do anything'));
    const earlier = turns.slice(0, turns.indexOf('› Ask Codex to do anything'));
    const prompt = [
      '› [mado route writer → reviewer · hop 1/3]',
      '  Review the change in src/parser.ts.',
      '  Point out bugs.',
      '',
      '',
    ];
    const under = detect(
      { lines: [...earlier, ...prompt, '• I will read the change first.', '', ...input], title: '' },
      { agent: 'codex', state: 'working' },
    );
    expect(under.completion).toBeUndefined();
    expect(under.state).not.toBe('stopped');
  });

  it('its other lines are no part of the answer the screen shows', async () => {
    const { screenAnswer } = await import('../../../src/agents/index.js');
    expect(
      screenAnswer('claude', [
        ...claudeEarlier,
        '',
        ...payload,
        '',
        '● No bugs found.',
        '',
        '✻ Worked for 3s',
        ...claudeInput,
      ]),
    ).toBe('No bugs found.');
  });
});

describe("a numbered approval's highlighted row", () => {
  it('is no draft (Codex 0.96 and 0.150: `› 1. Yes, proceed (y)` is its input line’s shape); a typed `1. fix it` with no menu is one', async () => {
    const { draftOf } = await import('../../../src/agents/index.js');
    const versions = (await import('../../fixtures/screens/versions/codex.json')).default as unknown as
      | Record<string, { lines: string[] }>
      | { name: string; lines: string[] }[];
    const named = (n: string): string[] =>
      (Array.isArray(versions) ? versions.find((v) => v.name === n)! : versions[n]!).lines;
    for (const n of ['cx096-shell-approval', 'cx0150-shell-approval'])
      expect(draftOf('codex', named(n))).toBeUndefined();
    const idle = fixtures['codex-stopped']!.lines.map((l) => (l === '› Ask Codex to do anything' ? '› 1. fix it' : l));
    expect(draftOf('codex', idle)).toBe('1. fix it');
  });
});
