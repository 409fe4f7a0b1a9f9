// Every agent MadoHub knows, each in a module of its own (src/agents/<id>.ts, listed by the
// generated registry.ts), and what the layers above ask of them: the engines of src/detect/ bound
// to every agent's rules.
import { screenAnswer as answerByRules } from '../detect/answer.js';
import { detect, identify } from '../detect/index.js';
import { agentOfProcess as processAgent, agentOfTree as treeAgent } from '../detect/process.js';
import type { ProcessAgent } from '../detect/process.js';
import { draftOf as draftByRule, promptOf as promptByRule } from '../detect/prompt.js';
import { highlightedOf, optionsOf } from '../detect/question.js';
import { explain } from '../detect/explain.js';
import { contextUsedOf } from '../detect/context.js';
import type { Explanation } from '../detect/explain.js';
import type { AgentRules, RuleSet } from '../detect/types.js';
import type { AgentId, Detection, PreviousReading, ProcessInfo, Screen } from '../shared/types.js';
import { AGENT_MODULES } from './registry.js';
import { UserRulesSource, withUserRules } from './user-rules.js';
import type { UserRules } from './user-rules.js';
import type { AgentModule, RecordedAnswer } from './types.js';

export { AGENT_MODULES };

function theOne(what: 'fallback' | 'default'): AgentModule {
  const found = AGENT_MODULES.filter((a) => a[what] === true);
  if (found.length !== 1)
    throw new Error(`exactly one agent module must be the ${what} (${found.map((a) => a.id).join(', ') || 'none is'})`);
  return found[0]!;
}

/** The shell: what a terminal runs when no agent does, and what an unknown agent id reads as. */
const FALLBACK = theOne('fallback');
export const FALLBACK_AGENT: AgentId = FALLBACK.id;

/** The agent a job runs when none is named and no setting (`default_agent`) says. */
export const DEFAULT_AGENT: AgentId = theOne('default').id;

const BY_ID = new Map<AgentId, AgentModule>(AGENT_MODULES.map((a) => [a.id, a]));

/** Whether `id` names an agent module. */
export const isAgentId = (id: unknown): boolean => typeof id === 'string' && BY_ID.has(id);

/** The module of agent `id`; the fallback agent's for an id no module has. */
export function agentModule(id: AgentId): AgentModule {
  return BY_ID.get(id) ?? FALLBACK;
}

/** A rule's name as the engine reports it: `<agent>/<name>`, unless it names its own kind (`shared/…`). */
const qualified = <R extends { name: string }>(id: AgentId, rule: R): R =>
  rule.name.includes('/') ? rule : { ...rule, name: `${id}/${rule.name}` };

/** One agent's screen rules with their names qualified. */
function named(rules: AgentRules): AgentRules {
  return {
    ...rules,
    lines: rules.lines.map((r) => qualified(rules.id, r)),
    titles: rules.titles.map((r) => qualified(rules.id, r)),
  };
}

/** Every agent's screen rules, for the detect engine. */
export const RULESET: RuleSet = {
  agents: AGENT_MODULES.filter((a) => !a.fallback).map((a) => named(a.screen)),
  fallback: FALLBACK_AGENT,
};

/** The user's rule files in use, and every agent's rules with theirs. */
let user: { source: UserRulesSource; set: RuleSet } | undefined;

/**
 * Reads the user's rule files of `dir` (|madohub-rules|) with every screen from now on, again when
 * one changes; `onLoad` hears each reading (its files, their errors). Undefined: the built-in rules only.
 */
export function useUserRules(dir: string | undefined, onLoad?: (rules: UserRules) => void): void {
  if (dir === undefined) {
    user = undefined;
    return;
  }
  const state = {
    set: RULESET,
    source: new UserRulesSource(dir, (rules) => {
      state.set = withUserRules(RULESET, rules);
      onLoad?.(rules);
    }),
  };
  user = state;
}

/** The user's rule files as read now (undefined when none are in use). */
export function userRulesNow(): UserRules | undefined {
  return user?.source.current();
}

/** Every agent's rules as they are now: the built-in ones, with the user's when in use. */
function ruleSet(): RuleSet {
  if (!user) return RULESET;
  user.source.current();
  return user.set;
}

/** Reads one screen by every agent's rules (`as`: by that agent's, whatever the screen shows). */
export function detectScreen(screen: Screen, previous?: PreviousReading, as?: AgentId): Detection {
  return detect(ruleSet(), screen, previous, as);
}

/** Reads one screen as detectScreen does, and says why. */
export function explainScreen(screen: Screen, previous?: PreviousReading, as?: AgentId): Explanation {
  return explain(ruleSet(), screen, previous, as);
}

/** Which agent a screen shows (sticky: see identify). */
export function identifyScreen(screen: Screen, previous?: PreviousReading): AgentId {
  return identify(ruleSet(), screen, previous);
}

/** The agent one process is, or undefined. */
export function agentOfProcess(p: ProcessInfo): AgentId | undefined {
  return processAgent(AGENT_MODULES, p);
}

/** The agent running among a terminal's processes (parents before children), or undefined. */
export function agentOfTree(processes: readonly ProcessInfo[]): ProcessAgent | undefined {
  return treeAgent(AGENT_MODULES, processes);
}

/** How full `agent`'s context is as its screen says (its footer); undefined when it says none. */
export function contextOfScreen(agent: AgentId, lines: readonly string[]): number | undefined {
  return contextUsedOf(agentModule(agent).screen, lines);
}

/** The first prompt `agent`'s screen shows submitted (a job's intent), or undefined. */
export function promptOf(agent: AgentId, lines: readonly string[]): string | undefined {
  return promptByRule(agentModule(agent).screen.prompt, lines);
}

/** What the user has typed into `agent`'s input line and not submitted, or undefined. */
export function draftOf(agent: AgentId, lines: readonly string[]): string | undefined {
  return draftByRule(agentModule(agent).screen.prompt, lines);
}

/** The answer of the last turn on `agent`'s screen, or undefined. */
export function screenAnswer(agent: AgentId, lines: readonly string[]): string | undefined {
  return answerByRules(agentModule(agent).screen, lines);
}

/**
 * How long an answer waits for its menu to be drawn: an agent's record can say it waits a moment
 * before its screen shows the question (Claude Code's transcript does).
 */
export const MENU_WAIT_MS = 3000;
/**
 * How long a menu must have been on the screen before keys answer it, for an agent that does not say
 * (AgentModule.menuStandMs).
 */
export const MENU_STAND_MS = 150;

/** How long `agent`'s menu must have been on the screen before keys answer it. */
export function menuStandMs(agent: AgentId): number {
  return agentModule(agent).menuStandMs ?? MENU_STAND_MS;
}

/**
 * The keys that pick choice `choice` (1-based) of the menu on `lines` of `agent`'s screen, or why
 * they cannot be told: the agent's way is not known, the screen shows no menu, or no such choice.
 */
export function menuKeys(
  agent: AgentId,
  lines: readonly string[],
  choice: number,
): { keys: string } | { error: string; noMenu?: true } {
  const how = agentModule(agent).menuKeys;
  if (!how) return { error: `how ${agentModule(agent).displayName}'s menus are answered is not known; attach to it` };
  const options = optionsOf(lines);
  const highlighted = highlightedOf(lines);
  if (options.length === 0 || highlighted === undefined) return { error: 'no menu on the screen', noMenu: true };
  if (!Number.isInteger(choice) || choice < 1 || choice > options.length)
    return { error: `choose 1 to ${options.length}` };
  return { keys: how(choice, highlighted) };
}

/**
 * The answer of the last prompt among an agent's records (parsed lines, oldest first), or undefined
 * (AgentModule.answerOf).
 */
export function lastAnswer(agent: AgentId, records: readonly unknown[]): RecordedAnswer | undefined {
  return agentModule(agent).answerOf?.(records);
}
