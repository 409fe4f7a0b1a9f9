// Answering the menu on an agent's screen with a choice, the one way for terminals and jobs: the
// menu is waited for while it is not drawn yet (a record said Waiting first), then until it has been
// on the screen for its agent's stand time (keys pressed as it appears are lost), and the keys are
// told from the screen as it is then.
import { setTimeout as sleep } from 'node:timers/promises';
import { optionsOf } from '../detect/question.js';
import type { ChangeWaiters } from '../shared/change-waiters.js';
import type { AgentId } from '../shared/types.js';
import { MENU_WAIT_MS, menuKeys, menuStandMs } from './index.js';

/**
 * Where the menu is: the agent while it waits (undefined once it does not), its screen, since when a menu
 * shows on it.
 */
export interface MenuScreen {
  waitingAgent(): AgentId | undefined;
  lines(): readonly string[];
  menuSince(): number | undefined;
  /** Poked at each new screen. */
  changes: ChangeWaiters;
}

/** The keys that answer, and the choice's text as the screen showed it; or why there are none. */
export async function menuAnswer(
  screen: MenuScreen,
  choice: number,
  now: () => number = Date.now,
): Promise<{ keys: string; option: string } | { error: string }> {
  const attempt = (): ReturnType<typeof menuKeys> => {
    const agent = screen.waitingAgent();
    return agent === undefined ? { error: 'the agent is not waiting' } : menuKeys(agent, screen.lines(), choice);
  };
  await screen.changes.until(() => !('noMenu' in attempt()), MENU_WAIT_MS);
  const agent = screen.waitingAgent();
  const since = screen.menuSince();
  if (agent !== undefined && since !== undefined) {
    const left = since + menuStandMs(agent) - now();
    if (left > 0) await sleep(left);
  }
  const keys = attempt();
  return 'error' in keys
    ? { error: keys.error }
    : { keys: keys.keys, option: (optionsOf(screen.lines())[choice - 1] ?? '').slice(0, 200) };
}
