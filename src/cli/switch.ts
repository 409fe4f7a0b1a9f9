import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The switch that turns the agent view off: the environment, or `agent_view = false` in settings. */
export function agentViewDisabled(env: NodeJS.ProcessEnv): boolean {
  if (env.MADOHUB_DISABLE_AGENT_VIEW === '1') return true;
  const dir = env.XDG_CONFIG_HOME || path.join(env.HOME || '', '.config');
  try {
    const settings = JSON.parse(readFileSync(path.join(dir, 'madohub', 'settings.json'), 'utf8')) as { agent_view?: unknown };
    return settings.agent_view === false;
  } catch {
    return false;
  }
}
