// Every agent MadoHub knows, each in a module of its own. To add one: its module, its id in ids.ts,
// its line here, and its tests (screens, processes, its job template).
import { highlightedOf, optionsOf } from '../detect/question.js';
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

/**
 * How long an answer waits for its menu to be drawn: an agent's record can say it waits a moment
 * before its screen shows the question (Claude Code's transcript does).
 */
export const MENU_WAIT_MS = 3000;
/** How long a menu must have been on the screen before keys answer it, for an agent that does not say (AgentModule.menuSettleMs). */
export const MENU_SETTLE_MS = 150;

/** How long `agent`'s menu must have been on the screen before keys answer it. */
export function menuSettleMs(agent: AgentId): number {
  return agentModule(agent).menuSettleMs ?? MENU_SETTLE_MS;
}

/**
 * The keys that pick choice `choice` (1-based) of the menu on `lines` of `agent`'s screen, or why
 * they cannot be told: the agent's way is not known, the screen shows no menu, or no such choice.
 */
export function menuKeys(agent: AgentId, lines: readonly string[], choice: number): { keys: string } | { error: string; noMenu?: true } {
  const how = agentModule(agent).menuKeys;
  if (!how) return { error: `how ${agentModule(agent).displayName}'s menus are answered is not known; attach to it` };
  const options = optionsOf(lines);
  const highlighted = highlightedOf(lines);
  if (options.length === 0 || highlighted === undefined) return { error: 'no menu on the screen', noMenu: true };
  if (!Number.isInteger(choice) || choice < 1 || choice > options.length) return { error: `choose 1 to ${options.length}` };
  return { keys: how(choice, highlighted) };
}

/** The last finished answer among an agent's records (parsed lines, oldest first), or undefined. */
export function lastAnswer(agent: AgentId, records: readonly unknown[]): string | undefined {
  return agentModule(agent).answerOf?.(records);
}
