import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeSession, claudeTranscriptReader, claudeTranscriptRecord } from '../../../src/agents/claude.js';
import { codexMeta, codexRolloutRecord } from '../../../src/agents/codex.js';
import { geminiChatHeader, geminiChatRecord } from '../../../src/agents/gemini.js';
import type { RecordSignal } from '../../../src/shared/types.js';

const dir = path.resolve(__dirname, '../../fixtures/records');
const jsonl = (file: string): unknown[] =>
  readFileSync(path.join(dir, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
const states = (signals: (RecordSignal | null)[]): string[] =>
  signals.filter((s): s is RecordSignal => s !== null).map((s) => s.state);

describe('Claude Code session file', () => {
  it('waiting, with what it waits for (a real 2.1.197 file)', () => {
    const s = claudeSession(JSON.parse(readFileSync(path.join(dir, 'claude-session-waiting.json'), 'utf8')));
    expect(s).toMatchObject({
      pid: 16721,
      sessionId: '9f20f47d-cc3d-4e6d-87b3-695a2d35486a',
      cwd: '/home/dev/proj',
      signal: { state: 'waiting', source: 'session-file', detail: 'permission prompt', at: 1795986687755 },
    });
  });
  it.each([
    ['idle', 'idle'],
    ['busy', 'working'],
  ])('%s is %s', (status, state) => {
    expect(claudeSession({ pid: 1, sessionId: 'x', status })?.signal.state).toBe(state);
  });
  it.each([null, 'text', [], { pid: 1 }, { pid: 1, sessionId: 'x', status: 'sleeping' }])('rejects %j', (v) => {
    expect(claudeSession(v)).toBeNull();
  });
});

describe('Claude Code transcript', () => {
  it('a real transcript: prompt, answers, tools, turn_duration (Completed)', () => {
    const signals = jsonl('claude-transcript.jsonl').map(claudeTranscriptRecord);
    const seq = states(signals);
    expect(seq.filter((s) => s === 'completed')).toHaveLength(2);
    expect(seq[0]).toBe('working');
    const done = signals.find((s) => s?.state === 'completed');
    expect(done).toMatchObject({ source: 'jsonl-watcher', detail: 'turn ended after 5.3s' });
    expect(done?.at).toBe(Date.parse('2026-11-29T21:04:51.646Z'));
  });
  it('read as a follower reads it, a turn’s end says the start of that turn’s answer', () => {
    const read = claudeTranscriptReader();
    const ends = jsonl('claude-transcript-tools.jsonl')
      .map(read)
      .filter((s) => s?.state === 'completed')
      .map((s) => s!.detail);
    type Said = { type?: string; message?: { stop_reason?: string; content?: { type: string; text?: string }[] } };
    const answers = (jsonl('claude-transcript-tools.jsonl') as Said[])
      .filter((r) => r.type === 'assistant' && r.message?.stop_reason === 'end_turn')
      .map((r) =>
        (r.message?.content ?? [])
          .filter((c) => c.type === 'text')
          .map((c) => c.text)
          .join(' ')
          .trim(),
      );
    expect(ends.length).toBeGreaterThan(1);
    expect(ends).toHaveLength(answers.length);
    // Each end its own turn's answer (cut where long), not `turn ended after 5.3s`.
    for (const [i, d] of ends.entries()) expect(answers[i]!.startsWith(d.replace(/…$/, ''))).toBe(true);
  });
  // 2.1.332's transcripts (their large attachment records and request copies left out): a file
  // written, an MCP tool called, a question asked; a plan refused, an interrupt, a queued prompt, an
  // API error. Its new bookkeeping records (api-request, mode, atis-latch, cost-state…) say nothing.
  const turns = (file: string): string[] =>
    jsonl(file)
      .map(claudeTranscriptRecord)
      .filter((s): s is RecordSignal => s !== null && s.detail !== 'answering')
      .map((s) => (s.state === 'completed' ? 'completed' : `${s.state}: ${s.detail}`));
  it('2.1.332: a Write, an MCP tool and a question, each a turn that ends Completed', () => {
    expect(turns('claude-transcript-tools.jsonl')).toEqual([
      'working: prompt',
      'completed',
      'working: prompt',
      'working: running tools',
      'completed',
      'working: prompt',
      'working: running tools',
      'completed',
      'working: prompt',
      'working: running tools',
      'completed',
    ]);
  });
  it('2.1.332: a refused plan is Failed (interrupted), a later turn Completed, an API error Failed', () => {
    expect(turns('claude-transcript-plan-error.jsonl')).toEqual([
      'working: prompt',
      'working: running tools',
      'failed: interrupted',
      'working: prompt',
      'completed',
      'working: prompt',
      'completed',
      'working: prompt',
      'failed: API Error: 400 Bad request from the mock',
    ]);
  });
  it('an interrupt is Failed', () => {
    const r = {
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    };
    expect(claudeTranscriptRecord(r)).toMatchObject({ state: 'failed', detail: 'interrupted' });
    const s = { type: 'user', message: { role: 'user', content: '[Request interrupted by user for tool use]' } };
    expect(claudeTranscriptRecord(s)?.state).toBe('failed');
  });
  it('an API error is Failed with its text', () => {
    const r = {
      type: 'assistant',
      isApiErrorMessage: true,
      message: { role: 'assistant', content: [{ type: 'text', text: 'API Error: 529 Overloaded' }] },
    };
    expect(claudeTranscriptRecord(r)).toMatchObject({ state: 'failed', detail: 'API Error: 529 Overloaded' });
  });
  it('meta and bookkeeping records say nothing', () => {
    expect(claudeTranscriptRecord({ type: 'user', isMeta: true, message: { content: 'x' } })).toBeNull();
    expect(claudeTranscriptRecord({ type: 'file-history-snapshot' })).toBeNull();
    expect(claudeTranscriptRecord({ type: 'system', subtype: 'other' })).toBeNull();
    expect(claudeTranscriptRecord('garbage')).toBeNull();
  });
});

describe('Codex 0.171.0 rollout (real)', () => {
  it('an edit, an answer interrupted by an Escape, a turn the API refused (task_complete with its error)', () => {
    const records = jsonl('codex-rollout-0.171.jsonl');
    expect(codexMeta(records[0])).toMatchObject({ cwd: '/home/dev/proj' });
    const seen = records
      .map(codexRolloutRecord)
      .filter((s): s is RecordSignal => s !== null)
      .map((s) => `${s.state}: ${s.detail}`);
    expect(seen).toEqual([
      'working: task started',
      'completed: Done: the change is made.',
      'working: task started',
      'failed: interrupted',
      'working: task started',
      'failed: {"error":{"message":"Bad request from the mock","type":"invalid_request_error","code":null}}',
    ]);
  });
});

describe('Codex rollout', () => {
  it('a real 0.171.0 rollout: session_meta, then started/complete per turn', () => {
    const records = jsonl('codex-rollout.jsonl');
    expect(codexMeta(records[0])).toEqual({
      sessionId: '01a22921-828c-7f42-bb0a-6d9a3fd23d56',
      cwd: '/home/dev/proj',
      startedAt: Date.parse('2026-11-29T21:06:31.766Z'),
    });
    const seq = states(records.map(codexRolloutRecord));
    expect(seq.slice(0, 6)).toEqual(['working', 'completed', 'working', 'completed', 'working', 'completed']);
    const done = records.map(codexRolloutRecord).find((s) => s?.state === 'completed');
    expect(done?.detail).toBe('Hello from the mock. The parser looks fine.');
  });
  it('turn_aborted and error are Failed', () => {
    expect(
      codexRolloutRecord({ type: 'event_msg', payload: { type: 'turn_aborted', reason: 'interrupted' } }),
    ).toMatchObject({
      state: 'failed',
      detail: 'interrupted',
    });
    expect(
      codexRolloutRecord({ type: 'event_msg', payload: { type: 'error', message: 'stream disconnected' } }),
    ).toMatchObject({
      state: 'failed',
      detail: 'stream disconnected',
    });
  });
  it('other records say nothing', () => {
    expect(codexRolloutRecord({ type: 'response_item', payload: { type: 'message' } })).toBeNull();
    expect(codexRolloutRecord({ type: 'event_msg', payload: { type: 'token_count' } })).toBeNull();
    expect(codexMeta({ type: 'event_msg' })).toBeNull();
  });
});

describe('Gemini CLI chat (0.61.0, real files)', () => {
  const details = (file: string): string[] =>
    jsonl(file)
      .map(geminiChatRecord)
      .filter((s): s is RecordSignal => s !== null)
      .map((s) => `${s.state}: ${s.detail}`);

  it('its header names the session and when it started', () => {
    expect(geminiChatHeader(jsonl('gemini-chat.jsonl')[0])).toEqual({
      sessionId: '3e745bfc-40f1-450e-979d-fd40edd2df03',
      startedAt: Date.parse('2026-11-30T10:29:54.640Z'),
      kind: 'main',
    });
    expect(geminiChatHeader(jsonl('gemini-chat.jsonl')[2])).toBeNull();
    expect(geminiChatHeader({ sessionId: 'x' })).toBeNull();
  });

  it('a prompt is Working, the answer Completed; the history set at start says nothing', () => {
    expect(details('gemini-chat.jsonl')).toEqual([
      'working: prompt',
      'completed: Hello from the mock. The parser looks fine.',
    ]);
  });

  it('a shell command and a file edit: the tool call and its results are Working, the text after them Completed; an Escape is Failed (interrupted)', () => {
    expect(details('gemini-chat-tools.jsonl')).toEqual([
      'working: prompt',
      'working: calling a tool',
      'working: running tools',
      'working: running tools',
      'completed: Done: the change is made.',
      'working: prompt',
      'working: calling a tool',
      'working: running tools',
      'working: running tools',
      'completed: Done: the change is made.',
      'working: prompt',
      'failed: interrupted',
      'working: prompt',
      'completed: Hello from the mock. The parser looks fine.',
      'working: prompt',
    ]);
  });

  it('an API error is Failed with its message; the note after it changes nothing', () => {
    const last = details('gemini-chat-error.jsonl');
    expect(last.at(-1)).toBe(
      'failed: [API Error: {"error":{"code":400,"message":"Internal error from the mock","status":"INVALID_ARGUMENT"}}]',
    );
  });

  it('ignores what is not a message', () => {
    for (const v of [
      null,
      'x',
      [],
      { $set: { lastUpdated: 'now' } },
      { type: 'warning', content: 'w' },
      { type: 'info', content: 'Compressed.' },
    ]) {
      expect(geminiChatRecord(v)).toBeNull();
    }
  });
});
