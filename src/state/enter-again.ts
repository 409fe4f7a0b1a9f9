// A text written into an agent whose Enter was lost: an input line that comes back after a menu
// loses an Enter that comes too soon, and the text stays there, a draft. While the text written
// stands in the input line, its Enter goes again (the one rule for terminals and jobs).
import { draftOf } from '../agents/index.js';
import type { AgentId } from '../shared/types.js';

/**
 * How long after its Enter a text still standing in the input line means that Enter was lost. An agent
 * slow to take its Enter (a loaded machine) shows the text there as long: given it again, it got an
 * Enter too many (half a second was too short in CI under load).
 */
export const ENTER_AGAIN_MS = 1000;
/** The most Enters one text is given. */
export const MAX_ENTERS = 3;

/**
 * Whether the draft an input line shows is the text written (its words as the line shows them, or
 * their start where the line cuts them): not a draft of the user's, nor the text with more typed.
 */
export function standsIn(draft: string, text: string): boolean {
  const words = (t: string): string => t.replace(/\s+/g, ' ').trim();
  const d = words(draft);
  const t = words(text);
  return d !== '' && (d === t || (t.startsWith(d) && d.length >= 40));
}

/** What the agent shows now: its screen, and whether the user types in its window; undefined when it is gone. */
export type AgentNow = () => { agent: AgentId; lines: readonly string[]; typing?: boolean } | undefined;

/**
 * Gives `text`, written with its Enter, that Enter again while it stands in the input line: every
 * ENTER_AGAIN_MS, MAX_ENTERS in all (`entered` so far). `told` is called before each. Returns how to
 * stop (a new text written).
 */
export function enterAgain(text: string, now: AgentNow, enter: () => void, told: () => void, entered = 1): () => void {
  let enters = entered;
  let timer: NodeJS.Timeout | undefined;
  const look = (): void => {
    const seen = now();
    const draft = seen && !seen.typing ? draftOf(seen.agent, seen.lines) : undefined;
    if (draft === undefined || !standsIn(draft, text) || enters >= MAX_ENTERS) return;
    told();
    enter();
    enters++;
    timer = setTimeout(look, ENTER_AGAIN_MS);
    timer.unref?.();
  };
  timer = setTimeout(look, ENTER_AGAIN_MS);
  timer.unref?.();
  return () => clearTimeout(timer);
}
