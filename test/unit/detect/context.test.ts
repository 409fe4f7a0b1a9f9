// How full an agent's context is, as its screen's footer says it: a rule of the agent's screen data.
import { describe, expect, it } from 'vitest';
import { codex } from '../../../src/agents/codex.js';
import { claude } from '../../../src/agents/claude.js';
import { pi } from '../../../src/agents/pi.js';
import { contextUsedOf } from '../../../src/detect/context.js';
import { agentScreens } from '../agents/fixtures.js';

describe('contextUsedOf', () => {
  it("reads Codex's `N% context left` (what is used: the rest) and Pi's `N%/128k` (what is used), from the footer", () => {
    expect(contextUsedOf(codex.screen, ['› hello', '', '  37% context left'])).toBe(63);
    expect(contextUsedOf(pi.screen, ['/tmp/p', '↑1.6k ↓327 R5.1k $0.011 1.9%/128k (auto)   (mock) mock-model'])).toBe(
      2,
    );
    // Higher up the screen (an answer quoting a footer) is no footer; an agent without the rule says none.
    expect(contextUsedOf(codex.screen, ['  12% context left', ...Array(10).fill('text')])).toBeUndefined();
    expect(contextUsedOf(claude.screen, ['  37% context left'])).toBeUndefined();
    expect(contextUsedOf(codex.screen, ['  250% context left'])).toBeUndefined();
  });

  it('reads the real screens: Codex 0.1xx says 100% left; Pi 0.0% used', () => {
    const codexLines = Object.values(agentScreens('versions/codex')).filter((f) =>
      f.lines.some((l) => /context left/.test(l)),
    );
    expect(codexLines.length).toBeGreaterThan(0);
    for (const f of codexLines) expect(contextUsedOf(codex.screen, f.lines)).toBe(0);
    const piLines = Object.values(agentScreens('pi')).filter((f) => f.lines.some((l) => /%\/128k/.test(l)));
    expect(piLines.length).toBeGreaterThan(0);
    for (const f of piLines) expect(contextUsedOf(pi.screen, f.lines)).toBe(0);
  });
});
