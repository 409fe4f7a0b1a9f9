// When a reply may go to an agent, and what stands typed in an agent's input line: the rules the
// picker's replies (terminals and jobs) follow, on the agents' real screens.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pendingLua } from '../../../scripts/doc-agents.js';
import { ROOT } from '../../helpers/files.js';
import { describe, expect, it } from 'vitest';
import { draftOf } from '../../../src/agents/index.js';
import { pendingOf, replyVerdict, screenVerdict } from '../../../src/agents/reply-verdict.js';
import { asPending, PENDING, PENDING_WORDS } from '../../../src/shared/pending.js';
import type { AgentId } from '../../../src/shared/types.js';
import screens from '../../fixtures/screens.json';
import versions from '../../fixtures/screens/versions/claude.json';

const of = (name: keyof typeof screens): { agent: AgentId; lines: string[] } => {
  const s = screens[name] as { lines: string[]; expect: { agent: AgentId } };
  return { agent: s.expect.agent, lines: s.lines };
};
/** A screen with `text` typed in its input line, as Claude Code and Codex draw it. */
const typed = (name: keyof typeof screens, text: string): { agent: AgentId; lines: string[] } => {
  const s = of(name);
  return { ...s, lines: s.lines.map((l) => (/^(❯|›) ?(Ask Codex to do anything)?$/.test(l) ? `${l[0]} ${text}` : l)) };
};

/** A real screen of a Claude Code version (test/fixtures/screens/versions/claude.json). */
const version = (name: keyof typeof versions): { agent: AgentId; lines: string[] } => ({
  agent: 'claude',
  lines: versions[name].lines,
});

/** OpenCode's finished turn with `text` typed in the first row of its input box. */
const typedOpenCode = (text: string): { agent: AgentId; lines: string[] } => {
  const s = of('opencode-real-done');
  // The input box: `┃`, the text's row, `┃`, `┃  Build · <model> <provider>`.
  const agentRow = s.lines.map((l) => /^\s*┃ {2}Build · /.test(l)).lastIndexOf(true);
  const box = agentRow - 2;
  return { ...s, lines: s.lines.map((l, i) => (i === box ? `  ┃  ${text}` : l)) };
};

describe('a draft in the input line', () => {
  it.each<[string, { agent: AgentId; lines: string[] }, string | undefined]>([
    ['Claude Code idle, nothing typed', of('claude-real-idle'), undefined],
    ['Claude Code idle, a draft', typed('claude-real-idle', 'fix the tests'), 'fix the tests'],
    // As Claude Code really draws a draft: a no-break space after its prompt glyph since 2.0, in a box in 1.0.
    ['Claude Code 1.0.92, a draft in its input box', version('cc1092-draft'), 'say hello'],
    ['Claude Code 2.0.34, a draft (`>\u00a0say hello`)', version('cc2034-draft'), 'say hello'],
    ['Claude Code 2.1.90, a draft (`❯\u00a0slow please`)', version('cc2190-draft'), 'slow please'],
    ['Claude Code 2.1.332, a draft after a turn (`❯\u00a0xyz`)', version('cc21332-draft'), 'xyz'],
    ['Claude Code 1.0.92 idle', version('cc1092-idle'), undefined],
    ['Claude Code 2.0.34 idle', version('cc2034-idle'), undefined],
    ['Claude Code 2.1.90 idle', version('cc2190-idle'), undefined],
    ['Claude Code 2.1.90 working', version('cc2190-working'), undefined],
    ['Claude Code 2.1.90 on a question', version('cc2190-question'), undefined],
    ['Claude Code 2.1.247 after a turn', version('cc21247-done'), undefined],
    [
      'Claude Code 2.1.90 after an interrupt: the prompt put back in its input line is a draft',
      version('cc2190-interrupted'),
      'slow again',
    ],
    ['Claude Code working with a message queued: its hint is no draft', of('claude-real-queued'), undefined],
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
    for (const state of ['idle', 'waiting', 'stopped', 'completed', 'failed'] as const)
      expect(replyVerdict({ state })).toBe('send');
    expect(replyVerdict({ state: 'working' })).toBe('queue');
    expect(replyVerdict({ state: 'idle', draft: 'half a thought' })).toBe('hold-draft');
    expect(replyVerdict({ state: 'working', draft: 'x' })).toBe('hold-draft');
    expect(replyVerdict({ state: 'idle', typing: true })).toBe('hold-typing');
    expect(replyVerdict({ state: 'idle', draft: '' })).toBe('send');
    expect(replyVerdict({ state: 'exited', typing: true })).toBe('refuse');
    // A menu that is waited for (a route's text, mado send's) holds it until the menu is answered.
    expect(replyVerdict({ state: 'waiting', menu: true })).toBe('hold-menu');
    expect(replyVerdict({ state: 'waiting', menu: false })).toBe('send');
  });

  it('a wait holds a route’s text and mado send’s whatever its menu shows: Claude Code’s trust dialog has no numbers', () => {
    const trust = { agent: 'claude', lines: versions['cc21332-trust'].lines };
    // `❯ No, exit` highlighted: the Enter after the text would pick it, and the agent would exit.
    expect(trust.lines.some((l) => l.includes('❯ No, exit'))).toBe(true);
    expect(screenVerdict('waiting', trust.agent, trust.lines, { waitMenus: true })).toBe('hold-menu');
    const approval = of('claude-real-approval');
    expect(screenVerdict('waiting', approval.agent, approval.lines, { waitMenus: true })).toBe('hold-menu');
    // The user's own reply goes (it may be the answer); so does a route's to an agent that waits on nothing.
    expect(screenVerdict('waiting', trust.agent, trust.lines, {})).toBe('send');
    const idle = of('claude-real-idle');
    expect(screenVerdict('idle', idle.agent, idle.lines, { waitMenus: true })).toBe('send');
  });

  it('says why it waits as a code, and the code in words where a person reads it', () => {
    expect(pendingOf('queue')).toBe('queued');
    expect(pendingOf('hold-draft')).toBe('held-draft');
    expect(pendingOf('hold-typing')).toBe('held-typing');
    expect(pendingOf('hold-menu')).toBe('held-menu');
    expect(pendingOf('send')).toBe('');
    expect(pendingOf('refuse')).toBe('');
    expect(PENDING_WORDS['held-draft']).toBe('held: draft');
    expect(PENDING_WORDS['held-typing']).toBe('held: Terminal mode');
    expect(PENDING_WORDS['held-menu']).toBe('held: menu');
    for (const p of PENDING) expect(typeof PENDING_WORDS[p]).toBe('string');
  });

  it('lua/madohub/pending.lua is what the build writes from the words (Lua keeps none of its own)', () => {
    expect(readFileSync(path.join(ROOT, 'lua', 'madohub', 'pending.lua'), 'utf8')).toBe(pendingLua());
    for (const p of PENDING) expect(pendingLua()).toContain(`['${p}'] = '${PENDING_WORDS[p]}'`);
  });

  it('reads a code from anywhere: an older host’s words as their codes, anything else that waits as queued', () => {
    for (const p of PENDING) expect(asPending(p)).toBe(p);
    expect(asPending('held: draft')).toBe('held-draft');
    expect(asPending('held: Terminal mode')).toBe('held-typing');
    expect(asPending(null)).toBe('');
    expect(asPending(undefined)).toBe('');
    expect(asPending(7)).toBe('');
    expect(asPending('\u001b]52;c;x\u0007')).toBe('queued');
  });
});
