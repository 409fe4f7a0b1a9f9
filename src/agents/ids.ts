// The agents' ids, and nothing else: small on purpose (`mado agents` validates job files with it).
// An agent added in src/agents/index.ts is added here too (a unit test checks the two agree).
export const AGENT_IDS = ['claude', 'codex', 'gemini', 'opencode', 'amp', 'shell'] as const;
export type AgentId = (typeof AGENT_IDS)[number];
