// An Idle right after Working waits for the screen to stand so (issue 32: output that has just
// appeared is not idle at once), as the peer suite's idle debounce asks: not at once, after the screen
// has stood still, the wait started again by a screen that changed; never Working, Waiting or an end.
import { describe, expect, it } from 'vitest';
import { SETTLE_MAX_MS, SETTLE_MS, SettlingIdle } from '../../../src/state/settle.js';
import type { AgentState } from '../../../src/shared/types.js';

const working = { agent: 'claude', state: 'working' as AgentState };
const at = (state: AgentState, agent = 'claude') => ({ agent, state });

describe('an Idle right after Working', () => {
  it('is not told when output has just appeared; it is once the screen has stood so for SETTLE_MS', () => {
    const s = new SettlingIdle<{ agent: string; state: AgentState }>();
    expect(s.read(at('idle'), working, ['Command completed successfully', '❯'], 1000)).toBeUndefined();
    expect(s.dueAt()).toBe(1000 + SETTLE_MS);
    expect(s.release(1000 + SETTLE_MS - 1)).toBeUndefined();
    expect(s.release(1000 + SETTLE_MS)).toEqual(at('idle'));
    expect(s.dueAt()).toBeUndefined();
  });

  it('waits again when the screen changes and still reads so, SETTLE_MAX_MS at most from the first', () => {
    const s = new SettlingIdle<{ agent: string; state: AgentState }>();
    s.read(at('idle'), working, ['Output v1'], 1000);
    // The same screen read again (a look with nothing new) does not start the wait again.
    expect(s.read(at('idle'), working, ['Output v1'], 1800)).toBeUndefined();
    expect(s.dueAt()).toBe(1000 + SETTLE_MS);
    expect(s.read(at('idle'), working, ['Output v2'], 1900)).toBeUndefined();
    expect(s.dueAt()).toBe(1900 + SETTLE_MS);
    expect(s.release(2100)).toBeUndefined();
    // A screen that never stops changing (a clock in its status line) is told at SETTLE_MAX_MS.
    for (let t = 2000; t < 1000 + SETTLE_MAX_MS; t += 200)
      expect(s.read(at('idle'), working, [`clock ${t}`], t)).toBeUndefined();
    expect(s.dueAt()).toBe(1000 + SETTLE_MAX_MS);
    expect(s.read(at('idle'), working, ['clock last'], 1000 + SETTLE_MAX_MS)).toEqual(at('idle'));
  });

  it('holds nothing once work or anything but Idle shows again, and nothing of another agent, or after Idle', () => {
    const s = new SettlingIdle<{ agent: string; state: AgentState }>();
    s.read(at('idle'), working, ['a'], 1000);
    expect(s.read(at('working'), working, ['b'], 1100)).toEqual(at('working'));
    expect(s.dueAt()).toBeUndefined();
    for (const state of ['waiting', 'stopped', 'completed', 'failed', 'exited'] as const)
      expect(s.read(at(state), working, ['c'], 1200)).toEqual(at(state));
    // The agent left for its shell: that is no turn of its.
    expect(s.read(at('idle', 'shell'), working, ['d'], 1300)).toEqual(at('idle', 'shell'));
    expect(s.read(at('idle'), at('idle'), ['e'], 1400)).toEqual(at('idle'));
    expect(s.read(at('idle'), at('stopped'), ['f'], 1500)).toEqual(at('idle'));
    expect(s.read(at('idle'), undefined, ['g'], 1600)).toEqual(at('idle'));
    expect(s.dueAt()).toBeUndefined();
  });

  it('dropped, holds nothing', () => {
    const s = new SettlingIdle<{ agent: string; state: AgentState }>();
    s.read(at('idle'), working, ['a'], 1000);
    s.drop();
    expect(s.dueAt()).toBeUndefined();
    expect(s.release(10_000)).toBeUndefined();
  });
});
