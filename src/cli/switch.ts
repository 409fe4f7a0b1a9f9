import path from 'node:path';
import { isObj } from '../shared/checks.js';
import { readConfigFile, readJsonBounded } from '../shared/files.js';
import { configHome } from '../shared/xdg.js';

/** The switch that turns the agent view off: the environment, or `agent_view = false` in settings. */
export function agentViewDisabled(env: NodeJS.ProcessEnv): boolean {
  if (env.MADOHUB_DISABLE_AGENT_VIEW === '1') return true;
  // Read bounded: a FIFO or a huge file there is no setting, and hangs nothing.
  const settings = readJsonBounded(path.join(configHome(env), 'madohub', 'settings.json'), 64 * 1024, readConfigFile);
  return isObj(settings) && settings.agent_view === false;
}
