// What an agent spends, counted by the follower that reads its records: a transcript larger than the
// follower's backlog is counted whole (its first part for its usage alone, its state from its end),
// a 100 MB one too, in pieces; a sub-agent's file beside it is followed; a line no agent writes is
// refused and the rest counted.
import { appendFileSync, mkdirSync, mkdtempSync, openSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claude } from '../../../src/agents/claude.js';
import { followJsonl } from '../../../src/records/follow.js';
import { FolderWatcher } from '../../../src/records/folders.js';
import { UsageFeed } from '../../../src/records/usage-feed.js';
import type { RecordSignal } from '../../../src/shared/types.js';
import type { UsageTally } from '../../../src/usage/tally.js';
import { usageView } from '../../../src/usage/view.js';
import { until } from '../../helpers/wait.js';

const answer = (k: number, extra = ''): string =>
  `${JSON.stringify({
    type: 'assistant',
    timestamp: new Date(Date.parse('2026-12-06T10:00:00Z') + k * 1000).toISOString(),
    message: {
      id: `msg_${k}`,
      model: 'claude-sonnet-4-5',
      content: [{ type: 'text', text: `answer ${k}${extra}` }],
      usage: { input_tokens: 100 + k, output_tokens: 7, cache_read_input_tokens: 50, cache_creation_input_tokens: 3 },
    },
  })}\n`;
const prompt = (k: number): string =>
  `${JSON.stringify({ type: 'user', timestamp: new Date(Date.parse('2026-12-06T10:00:00Z') + k * 1000 - 1).toISOString(), message: { role: 'user', content: `prompt ${k}` } })}\n`;

describe('UsageFeed with followJsonl', () => {
  const folders = new FolderWatcher();
  const stops: (() => void)[] = [];
  afterEach(async () => {
    for (const s of stops.splice(0)) s();
    await folders.close();
  });

  const follow = (file: string): { tallies: UsageTally[]; signals: RecordSignal[]; logged: string[] } => {
    const out = { tallies: [] as UsageTally[], signals: [] as RecordSignal[], logged: [] as string[] };
    const feed = new UsageFeed(
      claude.usage!,
      folders,
      (t) => out.tallies.push(t),
      (m) => out.logged.push(m),
    );
    const f = followJsonl(
      file,
      folders,
      claudeSignal,
      (s) => out.signals.push(s),
      () => undefined,
      feed,
    );
    stops.push(() => {
      f.stop();
      feed.stop();
    });
    return out;
  };
  /** A signal per record that is an answer (what the follower reports: the last of a read). */
  const claudeSignal = (r: unknown): RecordSignal | null =>
    (r as { type?: string }).type === 'assistant'
      ? { state: 'working', source: 'jsonl-watcher', detail: String((r as { message: { id: string } }).message.id) }
      : null;
  const last = (t: UsageTally[]) => (t.length > 0 ? usageView(t[t.length - 1]!) : undefined);

  it('counts a 100 MB transcript whole, in pieces, and reports its state from its end only', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-usage-'));
    const file = path.join(dir, 's.jsonl');
    const fd = openSync(file, 'w');
    const filler = 'x'.repeat(100 * 1024);
    let k = 0;
    let written = 0;
    while (written < 100 * 1024 * 1024) {
      k++;
      const text = prompt(k) + answer(k, filler);
      writeSync(fd, text);
      written += text.length;
    }
    closeSync(fd);
    const out = follow(file);
    const want = (k * (k + 1)) / 2 + 100 * k;
    await until(() => last(out.tallies)?.inputTokens === want, 60000);
    const u = last(out.tallies)!;
    expect(u.outputTokens).toBe(7 * k);
    expect(u.turn.inputTokens).toBe(100 + k);
    // The state is the end's (one signal, the last answer's), not a replay of a thousand turns.
    expect(out.signals.map((s) => s.detail)).toEqual([`msg_${k}`]);
  }, 90000);

  it("refuses a usage no agent writes, says it, counts the rest, and follows a sub-agent's file beside it", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-usage-'));
    const file = path.join(dir, 's.jsonl');
    appendFileSync(file, prompt(1) + answer(1));
    appendFileSync(
      file,
      `${JSON.stringify({ type: 'assistant', message: { id: 'bad', model: 'm', usage: { input_tokens: 1e308 } } })}\n`,
    );
    const out = follow(file);
    await until(() => last(out.tallies)?.inputTokens === 101);
    expect(out.logged.join('\n')).toMatch(/refused: inputTokens 1e\+308 is no count of tokens/);
    const subs = path.join(dir, 's', 'subagents');
    mkdirSync(subs, { recursive: true });
    appendFileSync(
      path.join(subs, 'agent-a1.jsonl'),
      answer(5).replace('"type":"assistant"', '"type":"assistant","isSidechain":true'),
    );
    await until(() => last(out.tallies)?.subAgents?.inputTokens === 105, 10000);
    expect(last(out.tallies)?.inputTokens).toBe(206);
    // A file beside them that is no sub-agent's is not read.
    appendFileSync(path.join(subs, 'notes.jsonl'), answer(9));
    appendFileSync(file, prompt(2) + answer(2));
    await until(() => last(out.tallies)?.inputTokens === 308);
  }, 30000);
});
