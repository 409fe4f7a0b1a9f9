// How full an agent's context is, as its screen says it (its footer's `37% context left`): a rule of
// its screen's data (AgentRules.context), read from the screen's last lines.
import type { AgentRules } from './types.js';

/** The lines from the bottom a context line is looked for in (a footer). */
const FOOTER_LINES = 8;

/** The per cent of its context the agent has used, as its screen's footer says; undefined when it says none. */
export function contextUsedOf(rules: AgentRules, lines: readonly string[]): number | undefined {
  const rule = rules.context;
  if (!rule) return undefined;
  for (let i = lines.length - 1; i >= Math.max(0, lines.length - FOOTER_LINES); i--) {
    const m = rule.line.exec(lines[i] ?? '');
    const pct = m ? Number(m[1]) : Number.NaN;
    if (Number.isFinite(pct) && pct >= 0 && pct <= 100) return Math.round(rule.left ? 100 - pct : pct);
  }
  return undefined;
}
