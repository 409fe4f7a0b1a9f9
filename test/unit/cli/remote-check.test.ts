// `mado host check` reads what the other side printed: its agents listed as they are, what a hostile
// side says in their place made safe, bounded, or left out.
import { describe, expect, it } from 'vitest';
import { CHECK_AGENTS, parseCheck } from '../../../src/cli/remote-check.js';

const said = (bridge: unknown): string =>
  `motd\n@@madohub-check\nv20.20.2\n\n@@madohub-bridge\n${JSON.stringify(bridge)}\n\n@@madohub-end\n`;

describe('mado host check: the report', () => {
  it('reads the agents there: id, agent, state, name', () => {
    const r = parseCheck(
      said({
        version: '0.1.0',
        proto: 2,
        pty: 'ok',
        daemon: 'running',
        jobs: 2,
        agents: [
          { id: '3fa2c1d0', agent: 'claude', state: 'working', name: 'parser fix' },
          { id: '0badcafe', agent: 'codex', state: 'completed', name: 'docs' },
        ],
      }),
    );
    expect(r?.node).toBe('v20.20.2');
    expect(r?.bridge).toMatchObject({
      jobs: 2,
      agents: [
        { id: '3fa2c1d0', agent: 'claude', state: 'working', name: 'parser fix' },
        { id: '0badcafe', agent: 'codex', state: 'completed', name: 'docs' },
      ],
    });
  });

  it('leaves out what is no agent, makes names safe, bounds the list; an old bridge lists none', () => {
    const hostile = [
      { id: '../../etc', agent: 'claude', state: 'working', name: 'x' },
      { id: '3fa2c1d0', agent: 'Claude Code', state: 'working', name: 'x' },
      { id: '3fa2c1d0', agent: 'claude', state: 'asleep', name: 'x' },
      { id: '3fa2c1d0', agent: 'claude', state: 'idle', name: 7 },
      'no object',
      { id: '3fa2c1d0', agent: 'claude', state: 'idle', name: `\x1b]0;pwned\x07evil\n${'n'.repeat(500)}` },
    ];
    const r = parseCheck(said({ jobs: 9, agents: hostile }));
    expect(r?.bridge?.agents).toHaveLength(1);
    const name = r!.bridge!.agents![0]!.name;
    expect(name).not.toMatch(/[\x00-\x1f\x7f]/);
    expect(name.length).toBeLessThanOrEqual(80);
    const many = parseCheck(
      said({
        jobs: 500,
        agents: Array.from({ length: 500 }, () => ({ id: '3fa2c1d0', agent: 'claude', state: 'idle', name: 'n' })),
      }),
    );
    expect(many?.bridge?.agents).toHaveLength(CHECK_AGENTS);
    expect(parseCheck(said({ jobs: -1 }))?.bridge).toMatchObject({ jobs: undefined, agents: undefined });
  });
});
