// Replies to this Neovim's terminals: when one goes, waits or is held, on real screens fed to the
// real tracker, with the write into the terminal recorded.
import { describe, expect, it } from 'vitest';
import { TerminalReplies } from '../../../src/fleet/terminal-replies.js';
import { Tracker } from '../../../src/state/tracker.js';
import screens from '../../fixtures/screens.json';
import { holds } from '../../helpers/wait.js';

type Name = keyof typeof screens;
const BUF = 4;

function setup(answer: () => string = () => '') {
  const tracker = new Tracker();
  const writes: { data: string; how: string }[] = [];
  const changed: number[] = [];
  /** What Lua is told, in order: `kept` (a reply it keeps, or null) and `changed` (the row says it waits). */
  const told: string[] = [];
  const replies = new TerminalReplies(
    tracker,
    async (_buf, data, how) => {
      const why = answer();
      if (!why) writes.push({ data, how });
      return why;
    },
    (buf) => {
      changed.push(buf);
      told.push('changed');
    },
    () => undefined,
    (_buf, list) => told.push(list.length > 0 ? `kept ${list.map((r) => r.text).join(', ')}` : 'kept null'),
  );
  let now = 1000;
  const show = async (name: Name, edit: (l: string) => string = (l) => l): Promise<void> => {
    const s = screens[name] as { title: string; lines: string[] };
    const lines = s.lines.map(edit);
    tracker.screen(BUF, { lines, title: s.title }, (now += 100));
    replies.screen(BUF, lines);
    await replies.flush(BUF);
  };
  return { tracker, replies, writes, changed, told, show };
}
/** A reply as it is written: a bracketed paste (the screens are Claude Code's, which asks for one). */
const pasted = (text: string): string => `\x1b[200~${text}\x1b[201~`;
const drafted =
  (text: string) =>
  (l: string): string =>
    /^❯ ?$/.test(l) ? `❯ ${text}` : l;

describe('replies to a terminal', () => {
  it('go at once, pasted, to an idle agent', async () => {
    const t = setup();
    await t.show('claude-real-idle');
    expect(await t.replies.reply(BUF, 'hello', false)).toBe('');
    expect(t.writes).toEqual([{ data: pasted('hello'), how: 'paste' }]);
    // Hostile text is one paste all the same.
    const u = setup();
    await u.show('claude-real-idle');
    await u.replies.reply(BUF, 'ok\x1b[201~\x03y', false);
    expect(u.writes).toEqual([{ data: pasted('ok␛[201~␃y'), how: 'paste' }]);
  });

  it('two to an idle agent are two prompts: the second waits for the turn the first started, and goes once it ended', async () => {
    const t = setup();
    await t.show('claude-real-idle');
    expect(await t.replies.reply(BUF, 'first', false, { waitMenus: true })).toBe('');
    // The screen has not turned yet: the second is not pasted into the same input line.
    expect(await t.replies.reply(BUF, 'second', false, { waitMenus: true })).toBe('queued');
    await t.show('claude-real-idle');
    expect(t.writes).toEqual([{ data: pasted('first'), how: 'paste' }]);
    await t.show('claude-real-working');
    expect(t.writes).toHaveLength(1);
    await t.show('claude-real-stopped');
    expect(t.writes).toEqual([
      { data: pasted('first'), how: 'paste' },
      { data: pasted('second'), how: 'paste' },
    ]);
  });

  it('wait for the end of the turn while the agent works', async () => {
    const t = setup();
    await t.show('claude-real-working');
    expect(await t.replies.reply(BUF, 'next', false)).toBe('queued');
    expect(t.replies.pendingOf(BUF)).toBe('queued');
    expect(t.writes).toEqual([]);
    // Another waits behind it; eight wait at most.
    expect(await t.replies.reply(BUF, 'another', false)).toBe('queued');
    for (let i = 3; i <= 8; i++) await t.replies.reply(BUF, `reply ${i}`, false);
    await expect(t.replies.reply(BUF, 'ninth', false)).rejects.toThrow('8 replies wait to be sent already');
    await t.show('claude-real-stopped');
    expect(t.writes).toEqual([{ data: pasted('next'), how: 'paste' }]);
    // The next waits for the turn the first starts.
    expect(t.replies.pendingOf(BUF)).toBe('queued');
    await t.show('claude-real-working');
    await t.show('claude-real-stopped');
    expect(t.writes.map((w) => w.data)).toEqual([pasted('next'), pasted('another')]);
  });

  it('are held while a draft stands in the input line, and go once it is empty', async () => {
    const t = setup();
    await t.show('claude-real-idle', drafted('half a thought'));
    expect(await t.replies.reply(BUF, 'reply', false)).toBe('held-draft');
    await t.show('claude-real-idle', drafted('half a thought, more'));
    expect(t.writes).toEqual([]);
    await t.show('claude-real-idle');
    expect(t.writes).toEqual([{ data: pasted('reply'), how: 'paste' }]);
  });

  it('are held while the user is in Terminal mode in its window (said by Lua, or found when writing)', async () => {
    const t = setup();
    await t.show('claude-real-idle');
    expect(await t.replies.reply(BUF, 'one', true)).toBe('held-typing');
    t.replies.typing(BUF, false);
    await t.replies.flush(BUF);
    expect(t.writes).toEqual([{ data: pasted('one'), how: 'paste' }]);

    let typing = true;
    const u = setup(() => (typing ? 'typing' : ''));
    await u.show('claude-real-idle');
    expect(await u.replies.reply(BUF, 'two', false)).toBe('held-typing');
    typing = false;
    u.replies.typing(BUF, false);
    await u.replies.flush(BUF);
    expect(u.writes).toEqual([{ data: pasted('two'), how: 'paste' }]);
  });

  it('are refused for an exited agent, an unknown buffer, no text or too much', async () => {
    const t = setup();
    await expect(t.replies.reply(BUF, 'x', false)).rejects.toThrow('is no terminal MadoHub watches');
    await t.show('claude-real-idle');
    await expect(t.replies.reply(BUF, '  ', false)).rejects.toThrow('a reply needs some text');
    await expect(t.replies.reply(BUF, 'y'.repeat(121 * 1024), false)).rejects.toThrow('the reply is 121 KiB');
    t.tracker.exit(BUF, 0, 5000);
    await expect(t.replies.reply(BUF, 'x', false)).rejects.toThrow('the agent has exited');
  });

  it('Lua keeps a reply before its row says it waits (a Node process killed the moment after loses nothing), and forgets it once written', async () => {
    const t = setup();
    await t.show('claude-real-working');
    expect(await t.replies.reply(BUF, 'next', false, { waitMenus: true, busyMs: 60000 })).toBe('queued');
    expect(t.told).toEqual(['kept next', 'changed']);
    await t.show('claude-real-stopped');
    expect(t.told.slice(2)).toEqual(['kept null', 'changed']);
    const u = setup();
    await u.show('claude-real-idle');
    expect(await u.replies.reply(BUF, 'now', false)).toBe('');
    expect(u.told).toEqual(['kept now', 'kept null', 'changed']);
  });

  it('a failed write says why, and the reply is not kept', async () => {
    const t = setup(() => 'its program has ended');
    await t.show('claude-real-idle');
    await expect(t.replies.reply(BUF, 'x', false)).rejects.toThrow('the reply was not sent: its program has ended');
    expect(t.replies.pendingOf(BUF)).toBe('');
  });
});

describe('menu answers to a terminal', () => {
  it('send the keys for the choice from the screen as read just before; refuse without a menu', async () => {
    const t = setup();
    await t.show('claude-real-approval');
    const lines = (screens['claude-real-approval'] as { lines: string[] }).lines;
    await t.replies.choose(BUF, 3, lines);
    expect(t.writes).toEqual([{ data: '\x1b[B\x1b[B\r', how: 'keys' }]);
    await expect(t.replies.choose(BUF, 4, lines)).rejects.toThrow('choose 1 to 3');
    await expect(t.replies.choose(BUF, 1, ['no menu here'])).rejects.toThrow('no menu on the screen');
    await t.show('claude-real-idle');
    await expect(t.replies.choose(BUF, 1, lines)).rejects.toThrow('the agent is not waiting');
  });

  it('an answer waits for a menu not drawn yet (its record said Waiting first), then until it has been on the screen a moment (keys pressed as it appears are lost)', async () => {
    const t = setup();
    await t.show('claude-real-working');
    t.tracker.record(BUF, { state: 'waiting', source: 'session-file', detail: 'waiting' }, 5000);
    expect(t.tracker.get(BUF)?.state).toBe('waiting');
    const asked = Date.now();
    const answered = t.replies
      .choose(BUF, 2, (screens['claude-real-working'] as { lines: string[] }).lines)
      .then(() => Date.now());
    expect(await holds(() => t.writes.length === 0, 300)).toBe(true);
    const drawn = Date.now();
    await t.show('claude-real-approval');
    const at = await answered;
    expect(t.writes).toEqual([{ data: '\x1b[B\r', how: 'keys' }]);
    // Claude Code's settle time after the menu came, not at once.
    expect(at - drawn).toBeGreaterThanOrEqual(550);
    expect(at - asked).toBeLessThan(3000);
    expect(await t.replies.choose(BUF, 1, (screens['claude-real-approval'] as { lines: string[] }).lines)).toBe('Yes');
  });

  it('an answer that waits for its menu is refused once the agent no longer waits, and after the bound when no menu comes', async () => {
    const t = setup();
    await t.show('claude-real-working');
    t.tracker.record(BUF, { state: 'waiting', source: 'session-file', detail: 'waiting' }, 5000);
    const refused = t.replies.choose(BUF, 1, []);
    t.tracker.record(BUF, { state: 'working', source: 'session-file', detail: 'busy' }, 5100);
    await t.show('claude-real-working');
    await expect(refused).rejects.toThrow('the agent is not waiting');
    t.tracker.record(BUF, { state: 'waiting', source: 'session-file', detail: 'waiting' }, 5200);
    const started = Date.now();
    await expect(t.replies.choose(BUF, 1, [])).rejects.toThrow('no menu on the screen');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    expect(t.writes).toEqual([]);
  });
});
