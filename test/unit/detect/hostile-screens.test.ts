// Screens no agent draws, as another program may print them: every detector reads them cut to a
// bound, and answers what a plain screen would.
import { describe, expect, it } from 'vitest';
import { boundScreen, MAX_LINE, MAX_ROWS, MAX_TITLE } from '../../../src/detect/index.js';
import { optionsOf, questionOf } from '../../../src/detect/question.js';
import { screenOf } from '../../../src/nvim/messages.js';
import { HOSTILE_SCREENS } from '../../../scripts/hostile.js';
import { AGENT_MODULES, detectScreen as detect, promptOf } from '../../../src/agents/index.js';

describe('hostile screens', () => {
  it('are cut to the last rows, the start of each row and of the title', () => {
    const lines = Array.from({ length: MAX_ROWS + 50 }, (_, i) => `${i} ${'x'.repeat(MAX_LINE * 2)}`);
    const cut = boundScreen({ lines, title: 't'.repeat(100_000), cursor: MAX_ROWS + 40 });
    expect(cut.lines).toHaveLength(MAX_ROWS);
    expect(cut.lines[0]!.startsWith('50 x')).toBe(true);
    expect(cut.lines.every((l) => l.length === MAX_LINE)).toBe(true);
    expect(cut.title).toHaveLength(MAX_TITLE);
    expect(cut.cursor).toBe(MAX_ROWS - 10);
    const small = { lines: ['a'], title: 'b' };
    expect(boundScreen(small)).toBe(small);
  });

  it('are bounded from the Lua watcher on', () => {
    const msg = screenOf({ buf: 1, lines: ['y'.repeat(50_000)], title: '⠋ '.repeat(50_000) });
    expect(msg!.lines[0]).toHaveLength(MAX_LINE);
    expect(msg!.title).toHaveLength(MAX_TITLE);
  });

  it.each(HOSTILE_SCREENS.map((s) => [s.name, s] as const))(
    '%s: read with a short detail, no prompt or question invented',
    (_, s) => {
      const d = detect(s.screen);
      expect(d.detail.length).toBeLessThanOrEqual(120);
      // Read as each agent's too (as when its process runs in the terminal): every rule of every module.
      for (const { id } of AGENT_MODULES) {
        expect(detect(s.screen, undefined, id).detail.length).toBeLessThanOrEqual(120);
        expect(promptOf(id, boundScreen(s.screen).lines)?.length ?? 0).toBeLessThanOrEqual(MAX_LINE);
      }
      expect(questionOf(boundScreen(s.screen).lines)?.length ?? 0).toBeLessThanOrEqual(MAX_LINE);
      expect(optionsOf(boundScreen(s.screen).lines).length).toBeLessThanOrEqual(MAX_ROWS);
    },
  );
});
