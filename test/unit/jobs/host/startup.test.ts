// How a job reads while its agent comes up: when its task is typed, and what its file says before
// the agent first works.
import { describe, expect, it } from 'vitest';
import { JobStartup, STARTING_MS, TYPED_TAKEN_MS } from '../../../../src/jobs/host/startup.js';
import type { AgentState, Detection } from '../../../../src/shared/types.js';

const seen = (agent: string, state: AgentState, kept = false): Detection => ({
  agent,
  state,
  source: 'pty-scrape',
  detail: state,
  ...(kept ? { kept: true as const } : {}),
});

describe('a job coming up', () => {
  it('types its task once, on its agent’s idle screen, not on the blank shell before it', () => {
    const s = new JobStartup({ typePrompt: 'fix it', typeInto: 'codex', starting: true }, 0);
    expect(s.typeDue(seen('shell', 'idle'), 100)).toBe(false);
    expect(s.typeDue(seen('codex', 'idle', true), 200)).toBe(false);
    expect(s.typeDue(seen('codex', 'working'), 300)).toBe(false);
    expect(s.typeDue(seen('codex', 'idle'), 400)).toBe(true);
    expect(s.typeDue(seen('codex', 'idle'), 500)).toBe(false);
  });

  it('types into whatever is idle once its agent has not shown within STARTING_MS', () => {
    const s = new JobStartup({ typePrompt: 'x', typeInto: 'codex' }, 0);
    expect(s.typeDue(seen('shell', 'idle'), STARTING_MS)).toBe(false);
    expect(s.typeDue(seen('shell', 'idle'), STARTING_MS + 1)).toBe(true);
  });

  it('started with a task it reads Working (starting) until its agent works; then as its screen says', () => {
    const s = new JobStartup({ starting: true }, 0);
    expect(s.patch(seen('claude', 'idle'), [], 100)).toMatchObject({
      status: 'running',
      tempo: 'active',
      detail: 'starting',
    });
    // A resumed session's old completion line is no turn of this job.
    expect(s.patch(seen('claude', 'stopped'), [], 200)).toMatchObject({ status: 'running', tempo: 'active' });
    expect(s.patch(seen('claude', 'working'), [], 300)).toMatchObject({
      status: 'running',
      tempo: 'active',
      detail: 'working',
    });
    expect(s.patch(seen('claude', 'stopped'), [], 400)).toMatchObject({ status: 'done', tempo: 'idle' });
  });

  it('a task typed and taken with no Working to see is idle a while after it was typed', () => {
    const s = new JobStartup({ starting: true, typePrompt: 'ls' }, 0);
    expect(s.typeDue(seen('shell', 'idle'), 100)).toBe(true);
    expect(s.patch(seen('shell', 'idle'), [], 100 + TYPED_TAKEN_MS - 1)).toMatchObject({
      tempo: 'active',
      detail: 'starting',
    });
    const after = s.patch(seen('shell', 'idle'), [], 100 + TYPED_TAKEN_MS);
    expect(after).toMatchObject({ status: 'running', tempo: 'idle' });
    expect(after.detail).not.toBe('starting');
  });

  it('past STARTING_MS with no work, it reads idle, not starting', () => {
    const s = new JobStartup({ starting: true }, 0);
    expect(s.patch(seen('claude', 'idle'), [], STARTING_MS)).toMatchObject({ tempo: 'idle' });
  });

  it('started with no prompt it is blocked on a prompt until it first works; a question is still a question', () => {
    const s = new JobStartup({ awaitingPrompt: true }, 0);
    expect(s.patch(seen('claude', 'idle'), [], 10)).toMatchObject({ tempo: 'blocked', needs: 'a prompt' });
    expect(s.patch(seen('claude', 'waiting'), ['Do you trust this folder?', '❯ 1. Yes'], 20)).toMatchObject({
      tempo: 'blocked',
    });
    expect(s.patch(seen('claude', 'waiting'), [], 20).needs).not.toBe('a prompt');
    expect(s.patch(seen('claude', 'idle'), [], 30)).toMatchObject({ tempo: 'blocked', needs: 'a prompt' });
    s.patch(seen('claude', 'working'), [], 40);
    expect(s.patch(seen('claude', 'stopped'), [], 50)).toMatchObject({ status: 'done', tempo: 'idle', needs: null });
  });
});
