// A host's replies to its agent, on its real screens: pasted then Enter apart; one waits while the
// agent works or a draft stands typed, and goes when it may; one that waits too long is dropped.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostReplies } from '../../../../src/jobs/host/replies.js';
import type { ReplyHost } from '../../../../src/jobs/host/replies.js';
import type { AgentState } from '../../../../src/shared/types.js';
import screens from '../../../fixtures/screens.json';

const lines = (name: keyof typeof screens): string[] => (screens[name] as { lines: string[] }).lines;

function host(state: AgentState, screen: readonly string[]): ReplyHost & { written: string[]; file: unknown[]; said: string[]; set(s: AgentState, l: readonly string[]): void } {
  let now = { state, lines: screen };
  const h = {
    written: [] as string[],
    file: [] as unknown[],
    said: [] as string[],
    write: (d: string) => void h.written.push(d),
    bracketed: () => true,
    lines: () => now.lines,
    reading: () => ({ state: now.state, agent: 'claude' }),
    writeJob: (c: unknown) => {
      h.file.push(c);
      return Promise.resolve();
    },
    say: (m: string) => void h.said.push(m),
    replied: () => undefined,
    set: (s: AgentState, l: readonly string[]) => {
      now = { state: s, lines: l };
    },
  };
  return h;
}

describe("a host's replies", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('go at once to an idle agent: one paste, then Enter apart', () => {
    const h = host('idle', lines('claude-idle'));
    expect(new HostReplies(h).send('go on\nplease', {}, false)).toEqual({ pending: '' });
    expect(h.written).toEqual(['\x1b[200~go on\nplease\x1b[201~']);
    vi.advanceTimersByTime(50);
    expect(h.written[1]).toBe('\r');
  });

  it('wait while the agent works, and go when its turn ends', () => {
    const h = host('working', lines('claude-working'));
    const r = new HostReplies(h);
    expect(r.send('next', {}, false)).toEqual({ pending: 'queued' });
    expect(h.file).toEqual([{ pendingReply: 'queued' }]);
    expect(r.send('another', {}, false)).toEqual({ error: 'a reply waits to be sent already' });
    r.flush('working', 'claude', lines('claude-working'));
    expect(h.written).toEqual([]);
    r.flush('stopped', 'claude', lines('claude-idle'));
    expect(h.written).toEqual(['\x1b[200~next\x1b[201~']);
    expect(h.file).toEqual([{ pendingReply: 'queued' }, { pendingReply: null }]);
  });

  it('are refused by an agent that exited or a job that ends; a route\'s is dropped once it waited its busyMs', () => {
    expect(new HostReplies(host('exited', [])).send('x', {}, false)).toEqual({ error: 'the agent has exited' });
    expect(new HostReplies(host('idle', [])).send('x', {}, true)).toEqual({ error: 'the job is ending' });
    const h = host('working', lines('claude-working'));
    const r = new HostReplies(h);
    expect(r.send('routed', { busyMs: 1000, waitMenus: true }, false)).toEqual({ pending: 'queued' });
    vi.advanceTimersByTime(1011);
    expect(h.written).toEqual([]);
    expect(h.said).toEqual(['a reply that waited too long was dropped']);
  });
});
