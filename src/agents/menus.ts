// Keys that answer an agent's menu, for the agents whose module knows how.
const DOWN = '\x1b[B';
const UP = '\x1b[A';

/** From the highlighted choice to `choice` with the arrow keys, then Enter. */
export function arrowsTo(choice: number, highlighted: number): string {
  const steps = choice - highlighted;
  return (steps > 0 ? DOWN.repeat(steps) : UP.repeat(-steps)) + '\r';
}
