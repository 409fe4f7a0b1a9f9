// The user's prompt as an agent echoes it above its answer: the job's "intent" when a terminal's
// agent is sent to the background. Pure, from the screen only, by each agent's rule (its module).
import { agentModule } from '../agents/index.js';
import type { AgentId } from './types.js';

/** The first submitted prompt on the screen, or undefined. */
export function promptOf(agent: AgentId, lines: readonly string[]): string | undefined {
  const rule = agentModule(agent).prompt;
  if (!rule) return undefined;
  for (let i = 0; i < lines.length; i++) {
    const m = rule.line.exec(lines[i]!);
    if (!m || (rule.not && rule.not.test(m[1]!))) continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() === '') j++;
    if (j < lines.length && rule.answered.test(lines[j]!)) return m[1]!;
  }
  return undefined;
}
