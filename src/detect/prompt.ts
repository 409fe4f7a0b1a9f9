// The user's prompt as an agent echoes it above its answer: the job's "intent" when a terminal's
// agent is sent to the background. Pure, per agent, from the screen only.
import type { AgentId } from './types.js';

interface PromptRule {
  /** A line that echoes a submitted prompt; group 1 is the prompt. */
  line: RegExp;
  /** What the next non-blank line must look like for the prompt to be submitted (not being typed). */
  answered: RegExp;
  /** Placeholders that are not prompts. */
  not?: RegExp;
}

const RULES: Partial<Record<AgentId, PromptRule>> = {
  // `> add a test` (older) or `❯ tell me something slow` (2.1), then the answer (`●`, `⏺`, `⎿`, a spinner).
  claude: { line: /^(?:>|❯) (\S.*?)\s*$/, answered: /^\s*(?:[●⏺⎿·✢*✶✻✽✳]|\S.*…)/ },
  // `› fix the failing parser test`, then `•` or `◦` rows.
  codex: { line: /^› (\S.*?)\s*$/, answered: /^\s*[•◦└■]/, not: /^Ask Codex to do anything$/ },
  // `> summarize the README` outside the input box, then the answer or a spinner.
  gemini: { line: /^> (\S.*?)\s*$/, answered: /^\s*(?:[✦⠀-⣿]|[^│╭╰\s])/ },
};

/** The first submitted prompt on the screen, or undefined. */
export function promptOf(agent: AgentId, lines: readonly string[]): string | undefined {
  const rule = RULES[agent];
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
