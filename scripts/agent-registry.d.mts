export function agentRegistry(agentsDir: string): string;
export function writeAgentRegistry(agentsDir: string): boolean;
