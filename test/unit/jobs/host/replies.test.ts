// A host's replies to its agent, on its real screens: pasted then Enter apart; one waits while the
// agent works or a draft stands typed, and goes when it may; one that waits too long is dropped.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HostReplies } from '../../../../src/jobs/host/replies.js';
import { ENTER_AGAIN_MS } from '../../../../src/state/enter-again.js';
import type { ReplyHost } from '../../../../src/jobs/host/replies.js';
import type { AgentState } from '../../../../src/shared/types.js';
import screens from '../../../fixtures/screens.json';

const lines = (name: keyof typeof screens): string[] => (screens[name] as { lines: string[] }).lines;

function host(
  state: AgentState,
  screen: readonly string[],
): ReplyHost & { written: string[]; file: unknown[]; said: string[]; set(s: AgentState, l: readonly string[]): void } {
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

/** Claude Code's idle screen with `text` standing in its input line (a paste whose Enter is not taken). */
const draftedWith = (idle: readonly string[], text: string): string[] =>
  idle.map((l) => (/^❯ ?$/.test(l) ? `❯ ${text}` : l));

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

  it('an Enter the input line lost (the text stands there, a draft) goes again, 3 times at most; none once the text is taken', () => {
    const idle = lines('claude-idle');
    const drafted = draftedWith(idle, 'go on please');
    const h = host('idle', idle);
    new HostReplies(h).send('go on please', {}, false);
    vi.advanceTimersByTime(50);
    expect(h.written).toEqual(['\x1b[200~go on please\x1b[201~', '\r']);
    // The Enter was lost: the text stands in the input line.
    h.set('idle', drafted);
    vi.advanceTimersByTime(ENTER_AGAIN_MS);
    expect(h.written.slice(2)).toEqual(['\r']);
    expect(h.said).toContainEqual(expect.stringContaining('Enter again'));
    vi.advanceTimersByTime(ENTER_AGAIN_MS * 5);
    expect(h.written.filter((w) => w === '\r')).toHaveLength(3);
    // Taken at once: no Enter more.
    const t = host('idle', idle);
    new HostReplies(t).send('go on please', {}, false);
    vi.advanceTimersByTime(50 + ENTER_AGAIN_MS * 5);
    expect(t.written.filter((w) => w === '\r')).toHaveLength(1);
  });

  it('an agent slow to take its Enter (a loaded machine: the text stands 800 ms) is given no second Enter', () => {
    const idle = lines('claude-idle');
    const drafted = draftedWith(idle, 'go on please');
    const h = host('idle', idle);
    new HostReplies(h).send('go on please', {}, false);
    vi.advanceTimersByTime(50);
    // The paste shows in the input line; its Enter is not taken yet.
    h.set('idle', drafted);
    vi.advanceTimersByTime(800);
    // Taken at last: its turn works.
    h.set('working', lines('claude-working'));
    vi.advanceTimersByTime(ENTER_AGAIN_MS * 5);
    expect(h.written.filter((w) => w === '\r')).toHaveLength(1);
  });

  it('two sent to an idle agent are two prompts: the second waits for the turn the first started, then goes once it ended', () => {
    const h = host('idle', lines('claude-idle'));
    const r = new HostReplies(h);
    expect(r.send('first', { waitMenus: true }, false)).toEqual({ pending: '' });
    // Its screen has not turned yet: still idle, the second is not glued to the first.
    expect(r.send('second', { waitMenus: true }, false)).toEqual({ pending: 'queued' });
    vi.advanceTimersByTime(50);
    r.flush('idle', 'claude', lines('claude-idle'));
    expect(h.written).toEqual(['\x1b[200~first\x1b[201~', '\r']);
    r.flush('working', 'claude', lines('claude-working'));
    expect(h.written).toHaveLength(2);
    r.flush('stopped', 'claude', lines('claude-stopped'));
    expect(h.written[2]).toBe('\x1b[200~second\x1b[201~');
  });

  it('a write the agent took at once (its screen drawn again, the input line empty, no turn): the next goes half a second on', () => {
    const h = host('idle', lines('claude-idle'));
    const r = new HostReplies(h);
    r.send('ls', {}, false);
    expect(r.send('pwd', {}, false)).toEqual({ pending: 'queued' });
    // The answer drawn, no draft: taken; the bound of a write taken at once passes.
    h.set('idle', [...lines('claude-idle').slice(0, 3), 'You said: ls', ...lines('claude-idle').slice(3)]);
    r.flush('idle', 'claude', h.lines());
    vi.advanceTimersByTime(600);
    expect(h.written[2]).toBe('\x1b[200~pwd\x1b[201~');
    expect(h.said).toEqual([]);
  });

  it('a write that shows no turn within the bound: the next text goes after it, and that is said', () => {
    const h = host('idle', lines('claude-idle'));
    const r = new HostReplies(h);
    r.send('first', {}, false);
    expect(r.send('second', {}, false)).toEqual({ pending: 'queued' });
    vi.advanceTimersByTime(2900);
    expect(h.written).toHaveLength(2);
    vi.advanceTimersByTime(200);
    expect(h.written[2]).toBe('\x1b[200~second\x1b[201~');
    expect(h.said).toContainEqual(expect.stringContaining('showed no turn within 3 s'));
  });

  it('wait while the agent works, and go when its turn ends', () => {
    const h = host('working', lines('claude-working'));
    const r = new HostReplies(h);
    expect(r.send('next', {}, false)).toEqual({ pending: 'queued' });
    expect(h.file).toEqual([{ pendingReply: 'queued' }]);
    // Another waits behind it, for the turn that one starts; eight wait at most.
    expect(r.send('another', {}, false)).toEqual({ pending: 'queued' });
    for (let i = 3; i <= 8; i++) expect(r.send(`reply ${i}`, {}, false)).toEqual({ pending: 'queued' });
    expect(r.send('ninth', {}, false)).toEqual({ error: '8 replies wait to be sent already' });
    r.flush('working', 'claude', lines('claude-working'));
    expect(h.written).toEqual([]);
    r.flush('stopped', 'claude', lines('claude-idle'));
    expect(h.written).toEqual(['\x1b[200~next\x1b[201~']);
    expect(h.file).toEqual([{ pendingReply: 'queued' }]);
    // The second goes once the turn the first started has ended, not before.
    r.flush('stopped', 'claude', lines('claude-idle'));
    expect(h.written).toHaveLength(1);
    r.flush('working', 'claude', lines('claude-working'));
    r.flush('stopped', 'claude', lines('claude-stopped'));
    expect(h.written[1]).toBe('\x1b[200~another\x1b[201~');
  });

  it("are refused by an agent that exited or a job that ends; a route's is dropped once it waited its busyMs", () => {
    expect(new HostReplies(host('exited', [])).send('x', {}, false)).toEqual({ error: 'the agent has exited' });
    expect(new HostReplies(host('idle', [])).send('x', {}, true)).toEqual({ error: 'the job is ending' });
    const h = host('working', lines('claude-working'));
    const r = new HostReplies(h);
    expect(r.send('routed', { busyMs: 1000, waitMenus: true }, false)).toEqual({ pending: 'queued' });
    vi.advanceTimersByTime(1011);
    expect(h.written).toEqual([]);
    expect(h.said).toEqual(['a reply that waited too long was dropped']);
  });

  it('one queued behind a write just made goes when the next reply finds the agent free, though no screen comes between (CI: a queued "work" never went)', () => {
    const idle = lines('claude-idle');
    const h = host('idle', idle);
    const r = new HostReplies(h);
    // An answer written to an idle agent that takes it at once (a shell's, a "You said"): no turn.
    expect(r.send('reply 15', {}, false)).toEqual({ pending: '' });
    vi.advanceTimersByTime(50);
    // The agent answered: its screen redrawn, idle.
    const answered = [...idle.slice(0, -1), 'You said: reply 15'];
    h.set('idle', answered);
    // Too soon after that write: the next one waits for it.
    expect(r.send('work', {}, false)).toEqual({ pending: 'queued' });
    // Past that bound, before its timer has looked again (timers run late on a busy machine): a second
    // reply comes, and nothing was drawn meanwhile.
    vi.setSystemTime(Date.now() + 455);
    expect(r.send('reply 16', {}, false)).toEqual({ pending: 'queued' });
    // The first that waited goes now (the second waits for its turn): nothing is stuck for want of a screen.
    vi.advanceTimersByTime(1000);
    expect(h.written.filter((w) => w.includes('work'))).toEqual(['\x1b[200~work\x1b[201~']);
    expect(h.written.some((w) => w.includes('reply 16'))).toBe(false);
  });
});
