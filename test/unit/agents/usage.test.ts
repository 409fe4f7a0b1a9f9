// What each agent spends, read from its real records (captured against the mock, whose counts differ
// per request: request k answers input 100+13k, output 7+3k, cache read 50k, cache write 20+k), equal
// to the records' own sums computed here another way.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claude } from '../../../src/agents/claude.js';
import { codex, codexContextUsedPct } from '../../../src/agents/codex.js';
import { copilot } from '../../../src/agents/copilot.js';
import { gemini } from '../../../src/agents/gemini.js';
import { opencode, readStore } from '../../../src/agents/opencode.js';
import { pi } from '../../../src/agents/pi.js';
import { qwen } from '../../../src/agents/qwen.js';
import type { AgentModule } from '../../../src/agents/types.js';
import { sqliteSupport } from '../../../src/records/sqlite.js';
import { isObj } from '../../../src/shared/checks.js';
import { UsageCounter } from '../../../src/usage/tally.js';
import type { Spend, Usage } from '../../../src/usage/types.js';
import { usageView } from '../../../src/usage/view.js';
import { recordsOf } from './fixtures.js';

const FIX = path.join(__dirname, '../../fixtures/records');

/** What the records say, read by the agent's own reader into one tally (one reader per file). */
function counted(module: AgentModule, files: readonly unknown[][]): Usage {
  const c = new UsageCounter();
  for (const records of files) {
    const read = module.usage!.reader();
    for (const r of records) {
      const reading = read(r);
      if (reading) expect(c.add(reading)).toBeUndefined();
    }
  }
  return usageView(c.tally, (model) => module.usage!.prices[model]);
}

const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
/** The mock's counts of its request k. */
const mock = (k: number) => ({ input: 100 + 13 * k, output: 7 + 3 * k, cacheRead: 50 * k, cacheWrite: 20 + k });

describe('Claude Code 2.1.332: its transcript and its sub-agent’s, one count per message id', () => {
  const main = recordsOf('claude-usage/transcript.jsonl');
  const subDir = path.join(FIX, 'claude-usage/transcript/subagents');
  const subs = readdirSync(subDir).map((f) => recordsOf(`claude-usage/transcript/subagents/${f}`));
  const answers = (records: readonly unknown[]): Map<string, number> => {
    // Each assistant line names its message (`msg_<k>`: the mock's request k); a message's usage is on each of its lines.
    const ks = new Map<string, number>();
    for (const r of records)
      if (isObj(r) && r.type === 'assistant' && isObj(r.message) && typeof r.message.id === 'string')
        ks.set(r.message.id, Number(r.message.id.replace('msg_', '')));
    return ks;
  };

  it('equals the sums of the answers the mock gave, the sub-agent’s counted in and said', () => {
    const mainKs = [...answers(main).values()];
    const subKs = [...new Set(subs.flatMap((s) => [...answers(s).values()]))];
    // Lines of one message written more than once (a text and a tool call): counted once.
    const lines = main.filter((r) => isObj(r) && r.type === 'assistant').length;
    expect(lines).toBeGreaterThan(mainKs.length);
    expect(subKs.length).toBeGreaterThan(0);
    const all = [...mainKs, ...subKs];
    const u = counted(claude, [main, ...subs]);
    expect(u.inputTokens).toBe(sum(all.map((k) => mock(k).input)));
    expect(u.outputTokens).toBe(sum(all.map((k) => mock(k).output)));
    expect(u.cacheReadTokens).toBe(sum(all.map((k) => mock(k).cacheRead)));
    expect(u.cacheWriteTokens).toBe(sum(all.map((k) => mock(k).cacheWrite)));
    expect(u.subAgents?.inputTokens).toBe(sum(subKs.map((k) => mock(k).input)));
    expect(u.model).toBe('claude-opus-5-5');
    // The last turn ("say bye") is its one answer.
    const last = Math.max(...mainKs);
    expect(u.turn).toEqual(expect.objectContaining({ inputTokens: mock(last).input, outputTokens: mock(last).output }));
  });

  it('goes on in a resumed session (claude --resume appends to its transcript: its totals continue)', () => {
    const resumed = recordsOf('claude-usage/resumed.jsonl');
    // The resumed file is the first one, then the new turn ("say again": the mock's request 48).
    expect(resumed.slice(0, main.length)).toEqual(main);
    const before = counted(claude, [main]);
    const after = counted(claude, [resumed]);
    expect(after.inputTokens).toBe(before.inputTokens + mock(48).input);
    expect(after.outputTokens).toBe(before.outputTokens + mock(48).output);
    expect(after.turn).toMatchObject({ inputTokens: mock(48).input, cacheReadTokens: mock(48).cacheRead });
  });

  it('prices with its table, and a model not in it has no cost', () => {
    const u = counted(claude, [main]);
    expect(u.costUsd).toBeNull();
    const c = new UsageCounter();
    const read = claude.usage!.reader();
    for (const r of main) {
      const reading = read(r);
      if (reading && reading.kind !== 'prompt') c.add({ ...reading, model: 'claude-sonnet-4-5' });
    }
    const priced = usageView(c.tally, (m) => claude.usage!.prices[m]);
    const p = claude.usage!.prices['claude-sonnet-4-5']!;
    expect(priced.costUsd).toBeCloseTo(
      (priced.inputTokens * p.input +
        priced.outputTokens * p.output +
        priced.cacheReadTokens * p.cacheRead +
        priced.cacheWriteTokens * p.cacheWrite) /
        1e6,
      12,
    );
    // Its context: the last request's input, cache reads and writes against the model's window.
    expect(priced.contextUsedPct).toBeGreaterThan(0);
  });
});

describe("Codex 0.171.0: its rollout's running totals", () => {
  const rollout = recordsOf('codex-usage-rollout.jsonl');
  const counts = rollout.flatMap((r) =>
    isObj(r) && isObj(r.payload) && r.payload.type === 'token_count' && isObj(r.payload.info) ? [r.payload.info] : [],
  );

  it("equals the sum of each request's own usage, the cached part told apart", () => {
    const last = (i: Record<string, unknown>, k: string): number =>
      isObj(i.last_token_usage) ? Number(i.last_token_usage[k]) : 0;
    const u = counted(codex, [rollout]);
    expect(counts.length).toBeGreaterThan(2);
    const input = sum(counts.map((i) => last(i, 'input_tokens')));
    const cached = sum(counts.map((i) => last(i, 'cached_input_tokens')));
    expect(u.inputTokens).toBe(input - cached);
    expect(u.cacheReadTokens).toBe(cached);
    expect(u.outputTokens).toBe(sum(counts.map((i) => last(i, 'output_tokens'))));
    expect(u.model).toBe('gpt-5-codex');
    // The last turn ("say bye") made one request.
    const final = counts[counts.length - 1]!;
    expect(u.turn.outputTokens).toBe(last(final, 'output_tokens'));
    // Its context as its footer counts it.
    expect(u.contextUsedPct).toBe(codexContextUsedPct(last(final, 'total_tokens'), Number(final.model_context_window)));
    expect(u.costUsd).toBeCloseTo((u.inputTokens * 1.25 + u.outputTokens * 10 + u.cacheReadTokens * 0.125) / 1e6, 12);
  });

  it("counts its context as Codex's footer does (its baseline left out)", () => {
    expect(codexContextUsedPct(12_000, 272_000)).toBe(0);
    expect(codexContextUsedPct(142_000, 272_000)).toBe(50);
    expect(codexContextUsedPct(400_000, 272_000)).toBe(100);
    expect(codexContextUsedPct(Number.NaN, 272_000)).toBeUndefined();
  });
});

/** Sums of the fields `pick` takes from each record that has them. */
function sums(records: readonly unknown[], pick: (r: unknown) => number[] | undefined): number[] {
  const out = [0, 0, 0, 0];
  for (const r of records) {
    const got = pick(r) ?? [];
    for (let i = 0; i < got.length; i++) out[i] = (out[i] ?? 0) + (got[i] ?? 0);
  }
  return out;
}
const tokensOf = (u: Spend): number[] => [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens];

describe('Gemini CLI 0.61.0: its chat, each answer once (a message written again), a tool’s result no prompt', () => {
  it("equals the sums of the mock's answers, and the last turn is its own answer", () => {
    const records = recordsOf('gemini-usage-chat.jsonl');
    // Each answer's mock request k: input (with its cached part) 100+63k, cached 50k, output 7+3k.
    const answers = new Map<string, Record<string, number>>();
    for (const r of records)
      if (isObj(r) && r.type === 'gemini' && isObj(r.tokens))
        answers.set(String(r.id), r.tokens as Record<string, number>);
    const lines = records.filter((r) => isObj(r) && r.type === 'gemini').length;
    expect(lines).toBeGreaterThan(answers.size);
    const all = [...answers.values()];
    const u = counted(gemini, [records]);
    expect(u.inputTokens).toBe(sum(all.map((t) => t.input! - t.cached!)));
    expect(u.cacheReadTokens).toBe(sum(all.map((t) => t.cached!)));
    expect(u.outputTokens).toBe(sum(all.map((t) => t.output! + t.thoughts!)));
    // Counts that differ per request: a sum is a real check.
    expect(new Set(all.map((t) => t.output)).size).toBe(all.length);
    const last = all[all.length - 1]!;
    expect(u.turn).toMatchObject({ inputTokens: last.input! - last.cached!, outputTokens: last.output });
    // The turn that ran a tool is its two answers, its tool's result no new turn.
    const c = new UsageCounter();
    const read = gemini.usage!.reader();
    const upToBye = records.slice(
      0,
      records.findIndex((r) => isObj(r) && JSON.stringify(r).includes('say bye')),
    );
    for (const r of upToBye) {
      const reading = read(r);
      if (reading) c.add(reading);
    }
    const tool = [...answers.values()].slice(1, 3);
    expect(usageView(c.tally).turn.outputTokens).toBe(sum(tool.map((t) => t.output!)));
    expect(u.model).toBe('gemini-3.1-pro-preview');
  });
});

describe('Pi 0.73.1: its session file, with the cost Pi gave each answer', () => {
  it('equals what its own footer said at the end (↑2.2k ↓442 R6.9k $0.015), its tool’s result no prompt', () => {
    const records = recordsOf('pi-usage-session.jsonl');
    const u = counted(pi, [records]);
    expect(u.outputTokens).toBe(442);
    expect(Math.round(u.inputTokens / 100) / 10).toBe(2.2);
    expect(Math.round(u.cacheReadTokens / 100) / 10).toBe(6.9);
    expect(u.costUsd!.toFixed(3)).toBe('0.015');
    const answers = records.flatMap((r) =>
      isObj(r) && isObj(r.message) && r.message.role === 'assistant' && isObj(r.message.usage) ? [r.message.usage] : [],
    );
    expect(u.inputTokens).toBe(sum(answers.map((a) => Number(a.input))));
    expect(u.costUsd).toBeCloseTo(sum(answers.map((a) => (isObj(a.cost) ? Number(a.cost.total) : 0))), 12);
    // The last turn ("say bye") is its one answer; the one that ran a tool had two.
    expect(u.turn.outputTokens).toBe(Number(answers[3]!.output));
  });
});

describe('Copilot CLI 1.0.102: its session events, equal to its own totals at its end', () => {
  it("each request's usage record, its input's cached part told apart, as its shutdown's model metrics sum them", () => {
    const records = recordsOf('copilot-usage-events.jsonl');
    const end = records.find((r) => isObj(r) && r.type === 'session.shutdown');
    const metrics = isObj(end) && isObj(end.data) && isObj(end.data.modelMetrics) ? end.data.modelMetrics : {};
    const own =
      isObj(metrics['claude-sonnet-4.5']) && isObj(metrics['claude-sonnet-4.5'].usage)
        ? metrics['claude-sonnet-4.5'].usage
        : {};
    const u = counted(copilot, [records]);
    expect(u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens).toBe(own.inputTokens);
    expect([u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens]).toEqual([
      own.outputTokens,
      own.cacheReadTokens,
      own.cacheWriteTokens,
    ]);
    // The mock's requests 49 to 52 (input 100+13k not from the cache): the last turn ("say bye") is 52.
    expect(u.inputTokens).toBe([49, 50, 51, 52].reduce((n, k) => n + mock(k).input, 0));
    expect(u.turn.inputTokens).toBe(mock(52).input);
  });
});

describe('the agents whose records count each request (captured before the mock varied its counts)', () => {
  it('Gemini CLI: its chat’s `tokens` per answer, once per message written again (the cached part told apart, thoughts are output)', () => {
    const all = recordsOf('gemini-chat-tools.jsonl');
    // A message is written again with the same id (its tool calls' results added): its last line counts.
    const last = new Map(all.map((r) => [isObj(r) && r.type === 'gemini' ? String(r.id) : {}, r]));
    const records = all.filter((r) => !(isObj(r) && r.type === 'gemini') || last.get(String(r.id)) === r);
    expect(records.length).toBeLessThan(all.length);
    const want = sums(records, (r) =>
      isObj(r) && r.type === 'gemini' && isObj(r.tokens)
        ? [
            Number(r.tokens.input) - Number(r.tokens.cached) + Number(r.tokens.tool),
            Number(r.tokens.output) + Number(r.tokens.thoughts),
            Number(r.tokens.cached),
            0,
          ]
        : undefined,
    );
    expect(want[0]).toBeGreaterThan(0);
    expect(tokensOf(counted(gemini, [all]))).toEqual(want);
  });

  it.each([
    ['0.24.4 (its sub-agent’s responses said apart)', 'qwen-chat.jsonl'],
    ['0.15.10 (counts that differ per request)', 'qwen-usage-chat.jsonl'],
  ])("Qwen Code %s: each API response of its chat's telemetry, as its stats count them", (_v, file) => {
    const records = recordsOf(file);
    const events = records.flatMap((r) => {
      const e = isObj(r) && isObj(r.systemPayload) && isObj(r.systemPayload.uiEvent) ? r.systemPayload.uiEvent : {};
      return e['event.name'] === 'qwen-code.api_response' ? [e] : [];
    });
    const of = (es: typeof events): number[] => [
      sum(es.map((e) => Number(e.input_token_count) - Number(e.cached_content_token_count))),
      sum(es.map((e) => Number(e.output_token_count) + Number(e.thoughts_token_count))),
      sum(es.map((e) => Number(e.cached_content_token_count))),
      0,
    ];
    const u = counted(qwen, [records]);
    expect(events.length).toBeGreaterThan(2);
    expect(tokensOf(u)).toEqual(of(events));
    const subs = events.filter((e) => typeof e.subagent_id === 'string');
    expect(u.subAgents && tokensOf(u.subAgents)).toEqual(subs.length > 0 ? of(subs) : null);
  });

  it("Copilot CLI: each request's session.usage_record", () => {
    const records = recordsOf('copilot-events.jsonl');
    const want = sums(records, (r) => {
      const u =
        isObj(r) && r.type === 'session.usage_record' && isObj(r.data) && isObj(r.data.usage)
          ? r.data.usage
          : undefined;
      return u && [u.inputTokens, u.outputTokens, u.cacheReadTokens, u.cacheWriteTokens].map(Number);
    });
    expect(want[0]).toBeGreaterThan(0);
    const u = counted(copilot, [records]);
    expect(tokensOf(u)).toEqual(want);
    expect(u.model).toBe('claude-sonnet-4.5');
  });

  it('Pi: each answer’s usage, with the cost Pi gave it', () => {
    const records = recordsOf('pi-session.jsonl');
    const want = sums(records, (r) => {
      const m = isObj(r) && r.type === 'message' && isObj(r.message) ? r.message : undefined;
      return m?.role === 'assistant' && isObj(m.usage)
        ? [m.usage.input, m.usage.output, m.usage.cacheRead, m.usage.cacheWrite].map(Number)
        : undefined;
    });
    const u = counted(pi, [records]);
    expect(tokensOf(u)).toEqual(want);
    // Pi priced the mock's model at 0: its own cost, not unknown.
    expect(u.costUsd).toBe(0);
  });

  it.skipIf(!sqliteSupport().ok)("OpenCode 1.18.33: its session's own totals and cost in its store", () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-opencode-')), 'opencode.db');
    copyFileSync(path.join(FIX, 'opencode.db'), file);
    const messages = JSON.parse(readFileSync(path.join(FIX, 'opencode-messages.json'), 'utf8')) as unknown[];
    const reading = readStore(file, { cwd: '/home/dev/proj', startedAt: 1796037737000 }, undefined, new Set());
    const u = counted(opencode, [reading.usage ?? []]);
    // The session row's sums are its messages' (each step's tokens).
    const want = sums(messages, (m) => {
      const d = isObj(m) && isObj(m.data) ? m.data : undefined;
      return d?.role === 'assistant' && isObj(d.tokens) && isObj(d.tokens.cache)
        ? [
            d.tokens.input,
            Number(d.tokens.output) + Number(d.tokens.reasoning),
            d.tokens.cache.read,
            d.tokens.cache.write,
          ].map(Number)
        : undefined;
    });
    expect(u.inputTokens).toBeGreaterThan(0);
    expect(tokensOf(u)).toEqual(want);
    expect(u.costUsd).toBe(0);
    expect(u.model).toBe('mock-model');
  });

  it.skipIf(!sqliteSupport().ok)(
    "OpenCode 1.18.33, counts that differ per request: its session's totals are its answers' sums",
    () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-opencode-')), 'opencode.db');
      copyFileSync(path.join(FIX, 'opencode-usage.db'), file);
      const reading = readStore(file, { cwd: '/tmp/cap/oproj', startedAt: 1796542880000 }, undefined, new Set());
      const u = counted(opencode, [reading.usage ?? []]);
      // Its four answers were the mock's requests 2 to 5 (the first, its title, is counted by none).
      const ks = [2, 3, 4, 5];
      expect(u.inputTokens).toBe(ks.reduce((n, k) => n + 100 + 13 * k, 0));
      expect(u.outputTokens).toBe(ks.reduce((n, k) => n + 7 + 3 * k, 0));
      expect(u.cacheReadTokens).toBe(ks.reduce((n, k) => n + 50 * k, 0));
      expect(u.costUsd).toBe(0);
    },
  );

  it.skipIf(!sqliteSupport().ok)(
    'OpenCode before its sessions kept totals: its state is read all the same, its usage none',
    () => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-opencode-')), 'opencode.db');
      copyFileSync(path.join(FIX, 'opencode.db'), file);
      type Db = { exec(sql: string): void; close(): void };
      const { DatabaseSync } = (
        process as unknown as { getBuiltinModule(id: string): { DatabaseSync: new (f: string) => Db } }
      ).getBuiltinModule('node:sqlite');
      const db = new DatabaseSync(file);
      db.exec('ALTER TABLE session DROP COLUMN cost');
      db.close();
      const reading = readStore(file, { cwd: '/home/dev/proj', startedAt: 1796037737000 }, undefined, new Set());
      expect(reading.signal).toMatchObject({ state: 'failed', source: 'session-db' });
      expect(reading.usage).toBeUndefined();
    },
  );
});

describe('hostile records', () => {
  it.each([
    ['claude', claude, { type: 'assistant', message: { id: 'm', model: 'x', usage: { input_tokens: 1e308 } } }],
    ['claude', claude, { type: 'assistant', message: { id: 'm', model: 'x', usage: { input_tokens: -4 } } }],
    ['claude', claude, { type: 'assistant', message: { id: 'm', model: 'x', usage: { output_tokens: '12' } } }],
    ['gemini', gemini, { type: 'gemini', id: 'g', tokens: { input: 'lots', output: 1 } }],
    [
      'pi',
      pi,
      { type: 'message', id: 'p', message: { role: 'assistant', usage: { input: 1, output: 1, cost: { total: -3 } } } },
    ],
  ])('%s: a usage no agent writes is refused, the rest is counted', (_id, module, bad) => {
    const c = new UsageCounter();
    const reading = module.usage!.reader()(bad);
    expect(reading && c.add(reading)).toMatch(/is no/);
    expect(usageView(c.tally).inputTokens).toBe(0);
  });
});
