// A finished answer as the agent's screen shows it: for a route when no record holds it. Pure, by
// each agent's answer rule (its module): below the last prompt it echoed, above the line that ended
// the turn, its items without their marks, tool calls and the agent's chrome left out.
import { echoEnd, echoedIn } from './prompt.js';
import type { AgentRules } from './types.js';

/** The answer of the last turn on the screen, or undefined (no rule, no prompt on it, nothing said). */
export function screenAnswer(rules: AgentRules, lines: readonly string[]): string | undefined {
  const rule = rules.answer;
  const start = rule?.start ?? rules.prompt?.line;
  if (!rule || !start) return undefined;
  let end = lines.length;
  if (rule.end) {
    for (let i = lines.length - 1; i >= 0; i--) {
      if (rule.end.test(lines[i]!)) {
        end = i;
        break;
      }
    }
  }
  let from = -1;
  for (let i = end - 1; i >= 0; i--) {
    const text = echoedIn(start, lines[i]!);
    if (text !== undefined && !rules.prompt?.not?.test(text)) {
      // A prompt of several lines: its other lines are no answer.
      from = rules.prompt ? echoEnd(rules.prompt, lines, i, text) : i;
      break;
    }
  }
  if (from < 0) return undefined;
  const out: string[] = [];
  let inTool = false;
  for (const line of lines.slice(from + 1, end)) {
    if (rule.chrome.test(line)) continue;
    const item = rule.item.exec(line);
    if (item) {
      inTool = rule.tool.test(line);
      if (!inTool) out.push(item[1]!.trimEnd());
    } else if (!inTool) {
      out.push(line.trim() === '' ? '' : line.replace(rule.indent, '').trimEnd());
    }
  }
  const text = out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return text === '' ? undefined : text;
}
