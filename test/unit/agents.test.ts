// Every agent's knowledge in its module: the registry and the id list agree, and each module is whole.
import { describe, expect, it } from 'vitest';
import { AGENT_IDS } from '../../src/agents/ids.js';
import { AGENT_MODULES, agentModule, agentNames } from '../../src/agents/index.js';
import { RULES } from '../../src/detect/index.js';
import { DEFAULT_TEMPLATES } from '../../src/jobs/templates.js';

describe('agent modules', () => {
  it('are the agents of ids.ts, each once', () => {
    expect(AGENT_MODULES.map((a) => a.id).sort()).toEqual([...AGENT_IDS].sort());
  });

  it.each(AGENT_MODULES.map((a) => [a.id, a] as const))('%s: screen rules of its own id, a display name, a template, its variables', (id, a) => {
    expect(a.screen.id).toBe(id);
    expect(a.displayName).not.toBe('');
    expect(a.template.command.length).toBeGreaterThan(0);
    expect(DEFAULT_TEMPLATES[id]).toMatchObject({ name: id, command: a.template.command });
    for (const p of a.env.prefixes) expect(p).toMatch(/^[A-Z][A-Z0-9_]*$/);
    if (id !== 'shell') expect(a.process?.names.length).toBeGreaterThan(0);
    expect(agentModule(id)).toBe(a);
  });

  it('give the detectors their rules and the Lua side its names', () => {
    expect(RULES.map((r) => r.id)).toEqual(['codex', 'gemini', 'opencode', 'amp', 'claude']);
    expect(agentNames()).toEqual([
      { id: 'codex', name: 'Codex' },
      { id: 'gemini', name: 'Gemini' },
      { id: 'opencode', name: 'OpenCode' },
      { id: 'amp', name: 'Amp' },
      { id: 'claude', name: 'Claude Code' },
      { id: 'shell', name: 'Shell' },
    ]);
  });
});
