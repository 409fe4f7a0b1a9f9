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

/** How far from the bottom of the screen an agent's input line may stand (its footer below it). */
const INPUT_REACH = 8;

/**
 * What the user has typed into the agent's input line and not yet submitted, or undefined: the
 * lowest prompt line near the bottom of the screen with text in it (a placeholder is none) that no
 * answer follows. A reply is held while there is one, so that it never mixes with a draft.
 */
export function draftOf(agent: AgentId, lines: readonly string[]): string | undefined {
  const rule = agentModule(agent).prompt;
  if (!rule) return undefined;
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  for (let i = end - 1; i >= Math.max(0, end - INPUT_REACH); i--) {
    const line = lines[i]!;
    if (rule.answered.test(line) && !rule.line.test(line)) return undefined;
    const m = rule.line.exec(line);
    if (m) return rule.not?.test(m[1]!) ? undefined : m[1]!;
  }
  return undefined;
}
