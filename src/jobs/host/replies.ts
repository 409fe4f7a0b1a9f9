// A host's replies to its agent: pasted (bracketed when the agent asked for it), then Enter apart (a
// newline inside a paste is text to an agent). One waits while the agent works (for the end of its
// turn) and while a draft stands in its input line (someone attached typed it), by the rule
// terminals follow (screenVerdict); one that waits longer than its `busyMs` is dropped.
import { draftOf } from '../../agents/index.js';
import { pendingOf, screenVerdict } from '../../agents/reply-verdict.js';
import type { Pending } from '../../shared/pending.js';
import type { AgentId, AgentState } from '../../shared/types.js';
import { pasteBytes } from '../../shared/paste.js';
import type { Chain } from '../chain-record.js';
import type { JobChange } from './job-writer.js';
import { WRITE_TURN_MS, WrittenTurn } from '../../state/turns.js';
import { enterAgain } from '../../state/enter-again.js';

/** What the replies use of the host: its agent's input, its screen and last reading, its job file. */
export interface ReplyHost {
  write(data: string): void;
  /** Whether the agent asked for bracketed paste (its screen's mode). */
  bracketed(): boolean;
  lines(): readonly string[];
  /** The last reading of the screen (the fallback agent, idle, before the first). */
  reading(): { state: AgentState; agent: AgentId };
  writeJob(change: JobChange): Promise<void>;
  say(message: string): void;
  /** A reply ends or starts the chain of routed text that reached the job. */
  replied(chain: Chain | undefined): void;
}

/** How long Enter waits after the paste: an agent takes a paste and a key in one read as a paste. */
const ENTER_AFTER_MS = 50;

interface WaitingReply {
  text: string;
  waitMenus: boolean;
  expires?: number;
  timer?: NodeJS.Timeout;
}

/** The most replies that wait for one job. */
export const MAX_WAITING = 8;

export class HostReplies {
  /** The replies that wait, first first. */
  private readonly waiting: WaitingReply[] = [];
  /** What the job file says of them (its pendingReply). */
  private pending: Pending | null = null;
  /** The turn the last write started: no more text goes in until it has ended (or showed none in time). */
  private readonly written = new WrittenTurn();
  /** The screen's text when the last write went in. */
  private writtenOver = '';
  private writtenTimer: NodeJS.Timeout | undefined;
  /** Stops the Enter given again to the text written last (see enterAgain). */
  private stopEnters?: () => void;

  constructor(private readonly host: ReplyHost) {}

  /** Pastes `text`, then Enter apart (again while the text stands in the input line, its Enter lost). */
  deliver(text: string): void {
    this.host.write(pasteBytes(text, this.host.bracketed()));
    this.stopEnters?.();
    setTimeout(() => this.host.write('\r'), ENTER_AFTER_MS);
    this.stopEnters = enterAgain(
      text,
      () => ({ agent: this.host.reading().agent, lines: this.host.lines() }),
      () => this.host.write('\r'),
      () => this.host.say('the Enter after a reply was lost (the text stood in the input line): Enter again'),
    );
    this.written.wrote(Date.now());
    this.writtenOver = this.host.lines().join('\n');
  }

  /**
   * Whether the agent is still taken by the last write (its turn not yet shown, or under way); a write that
   * showed no turn in time is said.
   */
  private taken(state: AgentState, agent: AgentId, lines: readonly string[]): boolean {
    const taken = this.written.observe(state, Date.now(), {
      redrawn: lines.join('\n') !== this.writtenOver,
      draft: draftOf(agent, lines) !== undefined,
    });
    if (taken === 'no turn')
      this.host.say(
        `what was written last showed no turn within ${WRITE_TURN_MS / 1000} s: the agent takes text again`,
      );
    const due = this.written.due(Date.now());
    clearTimeout(this.writtenTimer);
    if (due !== undefined && this.waiting.length > 0) {
      this.writtenTimer = setTimeout(
        () => {
          const now = this.host.reading();
          this.flush(now.state, now.agent, this.host.lines());
        },
        Math.max(0, due - Date.now()) + 10,
      );
      this.writtenTimer.unref?.();
    }
    return taken === true;
  }

  /**
   * A reply: sent now (`pending: ''`), or waiting (behind those that wait already, MAX_WAITING at most) and
   * why; or why it cannot be.
   */
  send(
    text: string,
    terms: { waitMenus?: boolean; busyMs?: number; chain?: Chain },
    ending: boolean,
  ): { pending: Pending } | { error: string } {
    if (ending) return { error: 'the job is ending' };
    if (this.waiting.length >= MAX_WAITING) return { error: `${MAX_WAITING} replies wait to be sent already` };
    const { state, agent } = this.host.reading();
    const lines = this.host.lines();
    const onScreen = screenVerdict(state, agent, lines, terms);
    if (onScreen === 'refuse') return { error: 'the agent has exited' };
    // Text written a moment ago has not shown its turn yet: this waits for that turn's end.
    const verdict = onScreen === 'send' && this.taken(state, agent, lines) ? 'queue' : onScreen;
    this.host.replied(terms.chain);
    if (verdict === 'send' && this.waiting.length === 0) {
      this.deliver(text);
      return { pending: '' };
    }
    const waiting: WaitingReply = { text, waitMenus: terms.waitMenus === true };
    this.waiting.push(waiting);
    if (terms.busyMs !== undefined) {
      waiting.expires = Date.now() + terms.busyMs;
      waiting.timer = setTimeout(() => {
        const now = this.host.reading();
        this.flush(now.state, now.agent, this.host.lines());
      }, terms.busyMs + 10);
    }
    // The job's row shows that a reply waits, and why (the first one's).
    const pending = this.waiting.length > 1 ? 'queued' : pendingOf(verdict);
    this.showPending(this.waiting.length > 1 ? this.pending : pending);
    // The agent takes text now and replies wait before this one: the first goes (a look at the agent
    // here may have ended the wait its timer was for, and no screen may come to flush it).
    if (verdict === 'send') this.flush(state, agent, lines);
    else this.taken(state, agent, lines);
    return { pending };
  }

  /**
   * Sends the first reply that waits when it may go; drops those that waited too long, or all once the
   * agent exited.
   */
  flush(state: AgentState, agent: AgentId, lines: readonly string[]): void {
    const taken = this.taken(state, agent, lines);
    const r = this.waiting[0];
    if (!r) return;
    const onScreen = screenVerdict(state, agent, lines, r);
    const verdict = onScreen === 'send' && taken ? 'queue' : onScreen;
    const dropped =
      verdict === 'refuse'
        ? [...this.waiting]
        : this.waiting.filter(
            (w) => (w !== r || verdict !== 'send') && w.expires !== undefined && Date.now() >= w.expires,
          );
    for (const w of dropped) {
      clearTimeout(w.timer);
      this.waiting.splice(this.waiting.indexOf(w), 1);
      this.host.say(
        `a reply that waited ${verdict === 'refuse' ? 'for an agent that exited' : 'too long'} was dropped`,
      );
    }
    if (verdict === 'send' && this.waiting[0] === r) {
      clearTimeout(r.timer);
      this.waiting.shift();
      this.deliver(r.text);
    }
    // The next one waits at least for the turn this one starts.
    this.showPending(
      this.waiting.length === 0 ? null : this.waiting[0] === r ? pendingOf(verdict) || 'queued' : 'queued',
    );
    if (this.waiting.length === 0) clearTimeout(this.writtenTimer);
  }

  /** Writes the job's pendingReply when it changed. */
  private showPending(pending: Pending | null): void {
    if (pending === this.pending) return;
    this.pending = pending;
    void this.host.writeJob({ pendingReply: pending });
  }
}
