// Replies and menu answers to this Neovim's terminals: when a reply may go (the rule of reply.ts,
// on the terminal's state and its last screen), the one that waits per terminal, and the keys that
// answer a menu. Writing into a terminal is Lua's (its channel): `write` does it.
import { agentModule, draftOf, FALLBACK_AGENT } from '../agents/index.js';
import { menuAnswer } from '../agents/menu-answer.js';
import { menuSince } from '../detect/question.js';
import { promptProblem } from '../jobs/templates.js';
import { ChangeWaiters } from '../shared/change-waiters.js';
import { pasteBytes } from '../shared/paste.js';
import type { TerminalState, Tracker } from '../state/tracker.js';
import { pendingOf, screenVerdict } from '../agents/reply-verdict.js';
import type { Pending } from '../shared/pending.js';
import type { ReplyVerdict } from '../agents/reply-verdict.js';
import { WrittenTurn } from '../state/turns.js';
import { enterAgain } from '../state/enter-again.js';

/**
 * Writes into a terminal of this Neovim (through its channel): a reply's paste (its bytes built by
 * pasteBytes; then Enter) or a menu's keys. Answers '' once written, or `typing` when the user is in
 * Terminal mode in its window.
 */
export type TerminalWrite = (buf: number, data: string, how: 'paste' | 'keys') => Promise<string>;

/**
 * How a reply waits: a user's goes into a menu's text box too; a route's waits for a menu to go, and for at
 * most `busyMs`.
 */
export interface ReplyTerms {
  waitMenus?: boolean;
  busyMs?: number;
}

/**
 * A reply that waits for a terminal, as Lua keeps it while it waits (Lua is given the list of those
 * that wait, first first, each time it changes): a Node process that dies and starts again gets them
 * back from Lua, and delivers each once (Lua forgets the first when it writes it).
 */
export type KeptReply = { text: string; terms: ReplyTerms };

/** The most replies that wait for one terminal (two routes' texts and the user's own, and more). */
export const MAX_WAITING = 8;

interface WaitingReply {
  text: string;
  /** Its terms as Lua keeps them (a route's bound). */
  terms?: { busyMs: number };
  typing: boolean;
  writing: boolean;
  waitMenus: boolean;
  /** When it is dropped unsent (epoch ms); undefined: never. */
  expires?: number;
  timer?: NodeJS.Timeout;
}

export class TerminalReplies {
  /** Each terminal's last screen (for a draft in its input line). */
  private readonly screens = new Map<number, readonly string[]>();
  /**
   * The replies that wait for each terminal, first first (MAX_WAITING at most), and whether the user types
   * in its window.
   */
  private readonly replies = new Map<number, WaitingReply[]>();
  /** Since when each terminal's screen shows a menu. */
  private readonly menuSeen = new Map<number, number>();
  /** Answers that wait for a menu to be drawn, poked by each screen. */
  private readonly screenChanged = new ChangeWaiters();
  /**
   * The turn each terminal's last written reply started: no more text goes in until it has ended (or showed
   * none in time).
   */
  private readonly written = new Map<number, { turn: WrittenTurn; over: string; timer?: NodeJS.Timeout }>();
  /** The terminals whose window the user types in (Terminal mode). */
  private readonly typingIn = new Set<number>();
  /** Stops the Enter given again to each terminal's last reply (see enterAgain). */
  private readonly stopEnters = new Map<number, () => void>();

  /**
   * `changed` is told when what waits for a terminal changed (its row shows it); `expired` when a reply
   * waited too long.
   */
  constructor(
    private readonly tracker: Tracker,
    private readonly write: TerminalWrite,
    private readonly changed: (buf: number) => void,
    private readonly expired: (buf: number) => void = () => undefined,
    private readonly kept: (buf: number, replies: KeptReply[]) => void = () => undefined,
  ) {}

  /** A terminal's screen as it is now. */
  screen(buf: number, lines: readonly string[]): void {
    this.screens.set(buf, lines);
    const since = menuSince(this.menuSeen.get(buf), lines, Date.now());
    if (since === undefined) this.menuSeen.delete(buf);
    else this.menuSeen.set(buf, since);
    this.screenChanged.poke();
  }

  /** A terminal's last screen ([] before its first). */
  screenOf(buf: number): readonly string[] {
    return this.screens.get(buf) ?? [];
  }

  forget(buf: number): void {
    this.screens.delete(buf);
    this.menuSeen.delete(buf);
    clearTimeout(this.written.get(buf)?.timer);
    this.written.delete(buf);
    for (const r of this.replies.get(buf) ?? []) clearTimeout(r.timer);
    if (this.replies.delete(buf)) this.kept(buf, []);
  }

  /** The reply that goes first to a terminal, if one waits. */
  private head(buf: number): WaitingReply | undefined {
    return this.replies.get(buf)?.[0];
  }

  /** Takes a reply off the terminal's list (it went, or was dropped); Lua is given the list left. */
  private drop(buf: number, r: WaitingReply): void {
    const list = this.replies.get(buf);
    const at = list?.indexOf(r) ?? -1;
    if (!list || at < 0) return;
    clearTimeout(r.timer);
    list.splice(at, 1);
    if (list.length === 0) this.replies.delete(buf);
    this.kept(buf, list.map(keptOf));
  }

  /**
   * A reply to a terminal's agent: written now when the agent can take it, else kept (behind those
   * that wait already, MAX_WAITING at most) until its turn ends, its input line is empty and the user
   * is out of Terminal mode in its window. Answers why it waits ('' once sent).
   */
  async reply(buf: number, text: string, typing: boolean, terms: ReplyTerms = {}): Promise<Pending> {
    if (!this.tracker.get(buf)) throw new Error(`buffer ${buf} is no terminal MadoHub watches`);
    if (terms.busyMs !== undefined && (!Number.isFinite(terms.busyMs) || terms.busyMs < 1))
      throw new Error('busyMs must be a time');
    if (text.trim() === '') throw new Error('a reply needs some text');
    const tooLarge = promptProblem(text);
    if (tooLarge) throw new Error(tooLarge.replace('the prompt', 'the reply'));
    const list = this.replies.get(buf) ?? [];
    if (list.length >= MAX_WAITING) throw new Error(`${MAX_WAITING} replies wait to be sent already`);
    const waiting: WaitingReply = {
      text,
      typing: typing || list.some((r) => r.typing),
      writing: false,
      waitMenus: terms.waitMenus === true,
    };
    if (terms.busyMs !== undefined) waiting.terms = { busyMs: terms.busyMs };
    if (terms.busyMs !== undefined) {
      waiting.expires = Date.now() + terms.busyMs;
      waiting.timer = setTimeout(() => void this.flush(buf).catch(() => undefined), terms.busyMs + 10);
      waiting.timer.unref();
    }
    list.push(waiting);
    this.replies.set(buf, list);
    // Lua keeps it from now on, before anything says it waits: a Node process that dies the moment
    // after gives it to the next one. Lua forgets it as it writes it, and when it is dropped.
    this.kept(buf, list.map(keptOf));
    await this.flush(buf);
    // Still waiting: its row says why.
    if (!this.replies.get(buf)?.includes(waiting)) return '';
    this.changed(buf);
    // Behind another reply: it waits for that one to go, and for the turn it starts to end.
    return this.head(buf) === waiting ? this.pendingOf(buf) : 'queued';
  }

  /** The user entered (true) or left Terminal mode in a window of the terminal. */
  typing(buf: number, typing: boolean): void {
    if (typing) this.typingIn.add(buf);
    else this.typingIn.delete(buf);
    const list = this.replies.get(buf);
    if (!list || list[0]!.typing === typing) return;
    for (const r of list) r.typing = typing;
    this.changed(buf);
  }

  /**
   * Answers the menu on a terminal's screen (`lines`, read just before) with a choice: the keys to write;
   * the choice's text.
   */
  async choose(buf: number, choice: number, lines: readonly string[]): Promise<string> {
    const st = this.tracker.get(buf);
    if (!st) throw new Error(`buffer ${buf} is no terminal MadoHub watches`);
    if (st.state !== 'waiting') throw new Error('the agent is not waiting');
    // The screen Lua read just now is the newest until the next one comes.
    const asked = Date.now();
    const before = this.screens.get(buf);
    const latest = (): readonly string[] => (this.screens.get(buf) === before ? lines : this.screenOf(buf));
    const keys = await menuAnswer(
      {
        waitingAgent: () => {
          const now = this.tracker.get(buf);
          return now?.state === 'waiting' ? now.agent : undefined;
        },
        lines: latest,
        // A menu only Lua's screen shows has been there since it was read, at the latest.
        menuSince: () => this.menuSeen.get(buf) ?? menuSince(undefined, latest(), asked),
        changes: this.screenChanged,
      },
      choice,
    );
    if ('error' in keys) throw new Error(keys.error);
    const why = await this.write(buf, keys.keys, 'keys');
    if (why) throw new Error(why === 'typing' ? 'you are typing in its window' : why);
    return keys.option;
  }

  private wrote(buf: number): void {
    let w = this.written.get(buf);
    if (!w) this.written.set(buf, (w = { turn: new WrittenTurn(), over: '' }));
    w.turn.wrote(Date.now());
    w.over = (this.screens.get(buf) ?? []).join('\n');
  }

  /**
   * The reply just written (Lua gave it its Enter): its Enter again while it stands in the input line, not
   * while the user types there.
   */
  private enterAgain(buf: number, text: string): void {
    this.stopEnters.get(buf)?.();
    const stop = enterAgain(
      text,
      () => {
        const st = this.tracker.get(buf);
        return st && { agent: st.agent, lines: this.screens.get(buf) ?? [], typing: this.typingIn.has(buf) };
      },
      () => void this.write(buf, '\r', 'keys').catch(() => undefined),
      () => undefined,
    );
    this.stopEnters.set(buf, stop);
  }

  /** Why the reply for a terminal waits, for its row ('' when none waits). */
  pendingOf(buf: number): Pending {
    const r = this.head(buf);
    return r ? pendingOf(this.verdictOf(buf, r)) || 'sending' : '';
  }

  private verdictOf(buf: number, r: Pick<WaitingReply, 'typing' | 'waitMenus'>): ReplyVerdict {
    const st = this.tracker.get(buf);
    if (!st) return 'refuse';
    const verdict = screenVerdict(st.state, st.agent, this.screens.get(buf) ?? [], r);
    // A reply written a moment ago has not shown its turn yet (or it is under way): this one waits for its end.
    return verdict === 'send' && this.taken(buf, st.state) ? 'queue' : verdict;
  }

  /** Whether the terminal's agent is still taken by the reply written last; a flush is due when that bound passes. */
  private taken(buf: number, state: TerminalState['state']): boolean {
    const w = this.written.get(buf);
    if (!w) return false;
    const lines = this.screens.get(buf) ?? [];
    const agent = this.tracker.get(buf)?.agent ?? FALLBACK_AGENT;
    const taken = w.turn.observe(state, Date.now(), {
      redrawn: lines.join('\n') !== w.over,
      draft: draftOf(agent, lines) !== undefined,
    });
    clearTimeout(w.timer);
    const due = w.turn.due(Date.now());
    if (due !== undefined) {
      w.timer = setTimeout(() => void this.flush(buf).catch(() => undefined), Math.max(0, due - Date.now()) + 10);
      w.timer.unref?.();
    }
    return taken === true;
  }

  /** Sends the reply that waits for a terminal when it may go now. */
  async flush(buf: number): Promise<void> {
    const st = this.tracker.get(buf);
    // Each reading tells the turn a written reply started (seen under way, then ended).
    if (st) this.taken(buf, st.state);
    const r = this.head(buf);
    if (!r || r.writing) return;
    const verdict = this.verdictOf(buf, r);
    if (verdict === 'refuse') {
      for (const each of [...(this.replies.get(buf) ?? [])]) this.drop(buf, each);
      throw new Error('the agent has exited');
    }
    // Those that waited too long are dropped (the one that may go now goes).
    const stale = (this.replies.get(buf) ?? []).filter(
      (w) => (w !== r || verdict !== 'send') && w.expires !== undefined && Date.now() >= w.expires,
    );
    if (stale.length > 0) {
      for (const w of stale) this.drop(buf, w);
      this.expired(buf);
      this.changed(buf);
      return this.flush(buf);
    }
    if (verdict !== 'send') return;
    r.writing = true;
    let why: string;
    try {
      const agent = this.tracker.get(buf)?.agent ?? FALLBACK_AGENT;
      why = await this.write(buf, pasteBytes(r.text, agentModule(agent).bracketedPaste), 'paste');
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    }
    r.writing = false;
    if (why === 'typing') {
      r.typing = true;
    } else {
      if (!why) {
        this.wrote(buf);
        this.enterAgain(buf, r.text);
      }
      this.drop(buf, r);
      if (why) throw new Error(`the reply was not sent: ${why}`);
    }
    this.changed(buf);
  }
}

/** A waiting reply as Lua keeps it. */
function keptOf(r: WaitingReply): KeptReply {
  return { text: r.text, terms: { waitMenus: r.waitMenus, ...(r.terms ?? {}) } };
}
