// The small entry of `mado agents`: bin/mado.js loads it instead of the whole CLI for this verb.
import { agents } from './agents.js';
import { agentViewDisabled } from './switch.js';

if (agentViewDisabled(process.env)) {
  process.stderr.write('mado agents: the agent view is off (MADOHUB_DISABLE_AGENT_VIEW=1 or agent_view = false in settings.json)\n');
  process.exitCode = 1;
} else {
  agents(process.env, (t) => process.stdout.write(t), process.argv.slice(3));
}
