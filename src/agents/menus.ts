// Keys that answer an agent's menu, for the agents whose module knows how.
const DOWN = '\x1b[B';
const UP = '\x1b[A';

/** From the highlighted choice to `choice` with the arrow keys, then Enter. */
export function arrowsTo(choice: number, highlighted: number): string {
  const steps = choice - highlighted;
  return `${steps > 0 ? DOWN.repeat(steps) : UP.repeat(-steps)}\r`;
}

/** The choice's own digit: menus that pick a numbered choice at its key (Codex, Gemini CLI). */
export function digitOf(choice: number): string {
  return String(choice);
}
