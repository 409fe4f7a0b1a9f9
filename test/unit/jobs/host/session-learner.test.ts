import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionLearner } from '../../../../src/jobs/host/session-learner.js';
import type { AgentModule } from '../../../../src/agents/types.js';
import { AGENT_MODULES } from '../../../../src/agents/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the session a job’s host learns', () => {
  it('a look within 2 s of the last is made once the 2 s have passed: a session file that comes after the screen’s last change is found', () => {
    vi.useFakeTimers();
    let file: string | undefined;
    const agent: AgentModule = {
      ...AGENT_MODULES[0]!,
      learnJobSession: () => (file ? { id: 'sess-1', file } : undefined),
    };
    const found: string[] = [];
    const learner = new SessionLearner(
      () => ({ pids: [1], cwd: '/p', startedAt: 0 }),
      {},
      (id) => found.push(id),
    );
    learner.look(agent);
    expect(found).toEqual([]);
    // The screen changes once more (the prompt typed), then stays: the file comes after it.
    vi.advanceTimersByTime(500);
    learner.look(agent);
    file = '/s/sess-1.jsonl';
    expect(found).toEqual([]);
    vi.advanceTimersByTime(1600);
    expect(found).toEqual(['sess-1']);
    // Once learnt, never again.
    learner.look(agent);
    vi.advanceTimersByTime(5000);
    expect(found).toEqual(['sess-1']);
  });
});
