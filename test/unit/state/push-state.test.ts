import { describe, expect, it } from 'vitest';
import { PushState } from '../../../src/state/push-state.js';
import { TENTATIVE_MS } from '../../../src/state/tentative.js';
import type { AgentState, Detection } from '../../../src/shared/types.js';

const screen = (state: AgentState, detail = ''): Detection => ({
  agent: 'claude',
  state,
  source: 'pty-scrape',
  detail,
});

describe("a job's state from its agent's events beside its screen", () => {
  it('no event: the screen', () => {
    expect(new PushState().combine(screen('working'), 0)).toEqual(screen('working'));
  });
  it('an approval the screen does not show yet is Waiting, from the hook; the screen answering it ends it', () => {
    const p = new PushState();
    p.combine(screen('working'), 0);
    p.record({ state: 'waiting', detail: 'Bash: rm -rf build' }, 10);
    expect(p.combine(screen('working'), 20)).toEqual({
      agent: 'claude',
      state: 'waiting',
      source: 'hook',
      detail: 'Bash: rm -rf build',
    });
    // The screen shows the dialog: its question stays the detail, the hook the source.
    expect(p.combine(screen('waiting', 'Do you want to proceed?'), 30)).toEqual({
      ...screen('waiting', 'Do you want to proceed?'),
      source: 'hook',
    });
    // Answered: the screen works again, and no hook says so (2.1.332 has none for it). The screen wins.
    expect(p.combine(screen('working'), 40)).toEqual(screen('working'));
    // Its Notification repeats the wait later: it tells nothing now.
    p.record({ state: 'waiting', detail: 'Claude needs your permission', repeat: true }, 50);
    expect(p.combine(screen('working'), 60)).toEqual(screen('working'));
  });
  it('a repeat of a wait whose first event was missed is taken', () => {
    const p = new PushState();
    p.combine(screen('working'), 0);
    p.record({ state: 'waiting', detail: 'Claude needs your permission', repeat: true }, 10);
    expect(p.combine(screen('working'), 20).state).toBe('waiting');
  });
  it('a turn the hook ended stays Completed through the idle screen after it; new work on the screen is a new turn', () => {
    const p = new PushState();
    p.combine(screen('working'), 0);
    p.record({ state: 'completed', detail: 'Done.' }, 10);
    expect(p.combine(screen('idle'), 20)).toMatchObject({ state: 'completed', source: 'hook', detail: 'Done.' });
    expect(p.combine(screen('stopped'), 30)).toMatchObject({ state: 'completed' });
    expect(p.combine(screen('working'), 40)).toEqual(screen('working'));
  });
  it("a job's Gemini CLI: its text before the tool call it asks for is no end; a record's end never hides a question", () => {
    const p = new PushState('jsonl-watcher');
    const told = { source: 'jsonl-watcher' as const };
    p.combine(screen('working'), 0);
    p.record({ state: 'completed', detail: 'I will run a command.', tentative: true }, 10, told);
    expect(p.combine(screen('working'), 20).state).toBe('working');
    // Its approval shows: Waiting, for as long as it asks.
    expect(p.combine(screen('waiting', 'Allow execution of [Shell]?'), 30).state).toBe('waiting');
    expect(p.combine(screen('waiting', 'Allow execution of [Shell]?'), 30 + 10 * TENTATIVE_MS).state).toBe('waiting');
    // Approved: the tool's record goes on working; the answer's end waits for the screen's.
    p.record({ state: 'working', detail: 'running tools' }, 20_000, told);
    expect(p.combine(screen('working'), 20_010).state).toBe('working');
    p.record({ state: 'completed', detail: 'Done: ran it.', tentative: true }, 20_100, told);
    expect(p.combine(screen('working'), 20_110).state).toBe('working');
    expect(p.combine(screen('idle'), 20_200)).toMatchObject({ state: 'completed', detail: 'Done: ran it.' });
    // A screen that never shows the end: told after TENTATIVE_MS of work.
    p.combine(screen('working'), 30_000);
    p.record({ state: 'completed', detail: 'Late.', tentative: true }, 30_010, told);
    expect(p.combine(screen('working'), 30_010 + TENTATIVE_MS - 1).state).toBe('working');
    expect(p.combine(screen('working'), 30_010 + TENTATIVE_MS).state).toBe('completed');
    // A record's end read after the question showed does not hide it.
    const q = new PushState('jsonl-watcher');
    q.combine(screen('waiting', 'Apply this change?'), 0);
    q.record({ state: 'completed', detail: 'answer' }, 10, told);
    expect(q.combine(screen('waiting', 'Apply this change?'), 20).state).toBe('waiting');
  });

  it('an interrupt after the hook said Working is the screen’s (no hook says it): Failed', () => {
    const p = new PushState();
    p.record({ state: 'working', detail: 'prompt sent' }, 10);
    expect(p.combine(screen('idle'), 5).state).toBe('working');
    expect(p.combine(screen('failed', 'interrupted'), 20)).toEqual(screen('failed', 'interrupted'));
  });
  it('an exited job is exited whatever an event said; an event’s detail carries no control character', () => {
    const p = new PushState();
    p.record({ state: 'waiting', detail: 'a\u001b[31mred\u0007 one' }, 10);
    expect(p.combine(screen('working'), 0).detail).toBe('a [31mred one');
    expect(p.combine(screen('exited'), 20).state).toBe('exited');
  });
  it('a notice in the output is newer than the screen it followed, however late the screen is read', () => {
    // Codex draws Working, then notifies its approval (OSC 9): the screen showed Working when the notice
    // came. The host reads the screen only after the spinner's next frame came (a busy machine): the
    // screen's change is no newer than the notice for it.
    const p = new PushState('notification');
    p.combine(screen('idle'), 0);
    p.record({ state: 'waiting', detail: 'touch mock-ran.txt' }, 10, { screen: 'working' });
    expect(p.combine(screen('working'), 30)).toMatchObject({ state: 'waiting', source: 'notification' });
    expect(p.combine(screen('working'), 40)).toMatchObject({ state: 'waiting', source: 'notification' });
    // The screen shows the dialog: confirmed; answered, it works again: the screen's change is after the notice.
    expect(p.combine(screen('waiting', 'Run touch?'), 50)).toMatchObject({ state: 'waiting', source: 'notification' });
    expect(p.combine(screen('working'), 60)).toEqual(screen('working'));
    // Its turn's end, told before the screen went idle: Completed through the idle screen.
    p.record({ state: 'completed', detail: 'Done: ran it.' }, 70, { screen: 'working' });
    expect(p.combine(screen('idle'), 80)).toMatchObject({ state: 'completed', source: 'notification' });
    // A new turn on the screen, read after another notice-free frame: the screen's.
    expect(p.combine(screen('working'), 90)).toEqual(screen('working'));
    expect(p.combine(screen('working'), 100)).toEqual(screen('working'));
  });
});
