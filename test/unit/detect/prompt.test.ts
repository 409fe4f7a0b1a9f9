import { describe, expect, it } from 'vitest';
import { promptOf } from '../../../src/agents/index.js';
import type { AgentId } from '../../../src/shared/types.js';
import screens from '../../fixtures/screens.json';

const of = (name: keyof typeof screens): { agent: AgentId; lines: string[] } => {
  const s = screens[name] as { lines: string[]; expect: { agent: AgentId } };
  return { agent: s.expect.agent, lines: s.lines };
};

describe('the prompt an agent echoes', () => {
  it.each<[keyof typeof screens, string | undefined]>([
    ['claude-real-working', 'tell me something slow'],
    ['claude-real-stopped', 'tell me something slow'],
    ['claude-working', 'add a test for the parser'],
    ['claude-real-idle', undefined],
    ['codex-real-working', 'explain the parser slow'],
    ['codex-real-idle', undefined],
    ['codex-idle', undefined],
    ['gemini-working', 'summarize the README'],
    ['gemini-real-working', 'explain the parser'],
    ['gemini-real-idle', undefined],
    ['gemini-real-queued', 'edit the notes'],
    ['gemini-real-queued-ran', 'edit the notes'],
    ['gemini-idle', undefined],
    ['opencode-working', 'explain the parser'],
    ['opencode-real-working', 'edit the notes'],
    ['opencode-real-idle', undefined],
    ['opencode-real-queued', 'edit the notes'],
    ['amp-real-working', 'say hello'],
    ['amp-real-done', 'say hello'],
    ['amp-real-steered', 'write slowly'],
    ['amp-real-shell-approval', 'run ls'],
    ['amp-real-idle', undefined],
  ])('%s → %s', (name, prompt) => {
    const { agent, lines } = of(name);
    expect(promptOf(agent, lines)).toBe(prompt);
  });
  it('a prompt being typed (the input box, nothing below it but a rule) is not one', () => {
    expect(promptOf('claude', ['─'.repeat(20), '❯ half typed', '─'.repeat(20)])).toBeUndefined();
    expect(promptOf('codex', ['› typing this', '', '  ? for shortcuts'])).toBeUndefined();
  });
});
