// Every agent MadoHub knows, each in a module of its own. To add one: its module, its id in ids.ts,
// its line here, and its tests (screens, processes, its job template).
import { amp } from './amp.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import type { AgentId } from './ids.js';
import { opencode } from './opencode.js';
import { shell } from './shell.js';
import type { AgentModule } from './types.js';

/** Every agent; the order breaks ties when two agents' screen markers stand on the same row. */
export const AGENT_MODULES: readonly AgentModule[] = [codex, gemini, opencode, amp, claude, shell];

const BY_ID = new Map<AgentId, AgentModule>(AGENT_MODULES.map((a) => [a.id, a]));

export function agentModule(id: AgentId): AgentModule {
  return BY_ID.get(id)!;
}

/** The list the Lua side gets: ids and display names. */
export function agentNames(): { id: AgentId; name: string }[] {
  return AGENT_MODULES.map((a) => ({ id: a.id, name: a.displayName }));
}
