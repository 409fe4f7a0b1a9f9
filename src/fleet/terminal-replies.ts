// Replies and menu answers to this Neovim's terminals: when a reply may go (the rule of reply.ts,
// on the terminal's state and its last screen), the one that waits per terminal, and the keys that
// answer a menu. Writing into a terminal is Lua's (its channel): `write` does it.
import { menuKeys } from '../agents/index.js';
import { draftOf } from '../detect/prompt.js';
import { promptProblem } from '../jobs/templates.js';
import type { Tracker } from '../state/tracker.js';
import { pendingWord, replyVerdict } from './reply.js';

/**
 * Writes into a terminal of this Neovim (through its channel): a reply (pasted, then Enter) or a
 * menu's keys. Answers '' once written, or `typing` when the user is in Terminal mode in its window.
 */
export type TerminalWrite = (buf: number, data: string, how: 'paste' | 'keys') => Promise<string>;

export class TerminalReplies {
  /** Each terminal's last screen (for a draft in its input line). */
  private readonly screens = new Map<number, readonly string[]>();
  /** A reply that waits for a terminal (one at most), and whether the user types in its window. */
  private readonly replies = new Map<number, { text: string; typing: boolean; writing: boolean }>();

  /** `changed` is told when what waits for a terminal changed (its row shows it). */
  constructor(
    private readonly tracker: Tracker,
    private readonly write: TerminalWrite,
    private readonly changed: (buf: number) => void,
  ) {}

  /** A terminal's screen as it is now. */
  screen(buf: number, lines: readonly string[]): void {
    this.screens.set(buf, lines);
  }

  forget(buf: number): void {
    this.screens.delete(buf);
    this.replies.delete(buf);
  }

  /**
   * A reply to a terminal's agent: written now when the agent can take it, else kept (one at most)
   * until its turn ends, its input line is empty and the user is out of Terminal mode in its window.
   * Answers why it waits ('' once sent).
   */
  async reply(buf: number, text: string, typing: boolean): Promise<string> {
    if (!this.tracker.get(buf)) throw new Error(`buffer ${buf} is no terminal MadoHub watches`);
    if (text.trim() === '') throw new Error('a reply needs some text');
    const tooLarge = promptProblem(text);
    if (tooLarge) throw new Error(tooLarge.replace('the prompt', 'the reply'));
    if (this.replies.has(buf)) throw new Error('a reply waits to be sent already');
    this.replies.set(buf, { text, typing, writing: false });
    await this.flush(buf);
    // Still waiting: its row says why.
    if (this.replies.has(buf)) this.changed(buf);
    return this.pendingOf(buf);
  }

  /** The user entered (true) or left Terminal mode in a window of the terminal. */
  typing(buf: number, typing: boolean): void {
    const r = this.replies.get(buf);
    if (!r || r.typing === typing) return;
    r.typing = typing;
    this.changed(buf);
  }

  /** Answers the menu on a terminal's screen (`lines`, read just before) with a choice: the keys to write. */
  async choose(buf: number, choice: number, lines: readonly string[]): Promise<void> {
    const st = this.tracker.get(buf);
    if (!st) throw new Error(`buffer ${buf} is no terminal MadoHub watches`);
    if (st.state !== 'waiting') throw new Error('the agent is not waiting');
    const keys = menuKeys(st.agent, lines, choice);
    if ('error' in keys) throw new Error(keys.error);
    const why = await this.write(buf, keys.keys, 'keys');
    if (why) throw new Error(why === 'typing' ? 'you are typing in its window' : why);
  }

  /** Why the reply for a terminal waits, for its row ('' when none waits). */
  pendingOf(buf: number): string {
    const r = this.replies.get(buf);
    return r ? pendingWord(this.verdictOf(buf, r.typing)) || 'sending' : '';
  }

  private verdictOf(buf: number, typing: boolean): ReturnType<typeof replyVerdict> {
    const st = this.tracker.get(buf);
    if (!st) return 'refuse';
    return replyVerdict({ state: st.state, typing, draft: draftOf(st.agent, this.screens.get(buf) ?? []) });
  }

  /** Sends the reply that waits for a terminal when it may go now. */
  async flush(buf: number): Promise<void> {
    const r = this.replies.get(buf);
    if (!r || r.writing) return;
    const verdict = this.verdictOf(buf, r.typing);
    if (verdict === 'refuse') {
      this.replies.delete(buf);
      throw new Error('the agent has exited');
    }
    if (verdict !== 'send') return;
    r.writing = true;
    let why: string;
    try {
      why = await this.write(buf, r.text, 'paste');
    } catch (err) {
      why = err instanceof Error ? err.message : String(err);
    }
    r.writing = false;
    if (why === 'typing') {
      r.typing = true;
    } else {
      this.replies.delete(buf);
      if (why) throw new Error(`the reply was not sent: ${why}`);
    }
    this.changed(buf);
  }
}
