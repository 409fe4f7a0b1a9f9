// A finished turn's answer, as a route sends it: from the agents' records (Claude Code's transcript,
// Codex's rollout) and, where no record holds it, from the screen.
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastAnswer, screenAnswer } from '../../../src/agents/index.js';
import { jobRecordFile, recordAnswer } from '../../../src/routes/io.js';
import type { AgentId } from '../../../src/shared/types.js';
import screens from '../../fixtures/screens.json';

const records = (file: string): Record<string, unknown>[] =>
  readFileSync(path.join(__dirname, '../../fixtures/records', file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const screen = (name: keyof typeof screens): [AgentId, string[]] => {
  const s = screens[name] as { lines: string[]; expect: { agent: AgentId } };
  return [s.expect.agent, s.lines];
};

describe('the answer on the screen', () => {
  it.each<[keyof typeof screens, string | undefined]>([
    // The text between the last prompt and the completion line; the tool call and its output left out.
    ['claude-real-stopped', "I'll remove the build folder.\n\nRemoved the build folder."],
    ['claude-stopped', 'Added test/parser.test.ts with three cases; all pass.'],
    ['codex-real-stopped', 'Hello from the mock. The parser looks fine.'],
    // The last of four turns.
    ['codex-real-stopped-turns', 'The tests ran.'],
    ['codex-stopped', 'Fixed the off-by-one in src/parser.ts; npm test passes (13 passed).'],
    ['opencode-stopped', 'The parser is a recursive-descent parser over the tokens from the lexer.'],
    // OpenCode 1.18.33 (real): the shell command's box left out, the text above the footer kept.
    ['opencode-real-done', 'Done: the change is made.'],
    // Gemini CLI 0.61.0 (real): ` > the prompt`, then `✦` items; no completion line.
    ['gemini-real-done', 'Hello from the mock. The parser looks fine.'],
    // Nothing said yet, or no rule for the agent.
    ['claude-real-idle', undefined],
    ['codex-real-idle', undefined],
    ['amp-waiting', undefined],
    ['shell-prompt', undefined],
  ])('%s', (name, answer) => {
    expect(screenAnswer(...screen(name))).toBe(answer);
  });

  it('keeps an answer of several lines and paragraphs, without the marks and indents', () => {
    const lines = [
      '❯ explain',
      '',
      '● First paragraph,',
      '  continued.',
      '',
      '  Second paragraph.',
      '● Read(src/a.ts)',
      '  ⎿  Read 12 lines',
      '● Done.',
      '',
      '✻ Worked for 3s',
      '────────',
      '❯ ',
      '────────',
    ];
    expect(screenAnswer('claude', lines)).toBe('First paragraph,\ncontinued.\n\nSecond paragraph.\nDone.');
  });

  it("ends Codex's answer at its done line of a turn under a second (`Worked for <1s`)", () => {
    const lines = [
      '› now write',
      '',
      '• I will write a file.',
      '',
      '• Added new.txt (+1 -0)',
      '    1 +new file',
      '',
      '• Done: ran it.',
      '',
      '  Worked for <1s • 09:35',
      '',
      '› Ask Codex to do anything',
    ];
    expect(screenAnswer('codex', lines)).toBe('I will write a file.\n\nDone: ran it.');
  });
});

describe('the answer in the records', () => {
  // The captured session ends with a prompt that had no answer yet ("one more"): read up to it.
  const whole = records('claude-transcript.jsonl');
  const transcript = whole.slice(
    0,
    whole.findIndex((r) => JSON.stringify(r).includes('"one more"')),
  );
  it('Claude Code: the text of the message that ended the turn, all its records, without thinking', () => {
    expect(lastAnswer('claude', transcript)?.text).toBe('Hello! How can I help?');
    // The last prompt's turn has none yet: not the one before's.
    expect(lastAnswer('claude', whole)).toBeUndefined();
    const last = [...transcript].reverse().find((r) => r.type === 'assistant')!;
    const message = last.message as Record<string, unknown>;
    // The same message in three records: thinking, a first text block, a second one.
    const split = [
      { ...last, message: { ...message, content: [{ type: 'thinking', thinking: 'hmm, what to say' }] } },
      { ...last, message: { ...message, content: [{ type: 'text', text: 'Part one.' }] } },
      { ...last, message: { ...message, content: [{ type: 'text', text: 'Part two.' }] } },
    ];
    expect(lastAnswer('claude', [...transcript.filter((r) => r !== last), ...split])?.text).toBe(
      'Part one.\n\nPart two.',
    );
  });

  it("Claude Code: a sub-agent's records (its sidechain) are not the answer; a turn that ends in a tool call has none", () => {
    const sidechain = {
      type: 'assistant',
      isSidechain: true,
      message: { id: 'msg_sub', stop_reason: 'end_turn', content: [{ type: 'text', text: 'sub-agent report' }] },
    };
    expect(lastAnswer('claude', [...transcript, sidechain])?.text).toBe('Hello! How can I help?');
    expect(lastAnswer('claude', transcript.slice(0, 5))).toBeUndefined();
  });

  it("Codex: the last turn's final message from its task_complete event", () => {
    expect(lastAnswer('codex', records('codex-rollout.jsonl'))?.text).toBe('The tests ran.');
  });
});

describe('an answer whose record lands after the screen showed the end', () => {
  const at = (ms: number): string => new Date(ms).toISOString();
  const started = (ms: number): string =>
    `${JSON.stringify({ timestamp: at(ms), type: 'event_msg', payload: { type: 'task_started' } })}\n`;
  const done = (ms: number, text: string): string =>
    `${JSON.stringify({ timestamp: at(ms), type: 'event_msg', payload: { type: 'task_complete', last_agent_message: text } })}\n`;

  it("is waited for (bounded), and is this turn's: an answer whose prompt came before the turn is none", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-late-'));
    const file = path.join(dir, 'rollout.jsonl');
    const t0 = Date.now() - 60_000;
    writeFileSync(file, started(t0) + done(t0 + 1000, 'first turn'));
    expect(await recordAnswer(file, 'codex', { since: t0 - 10 }, undefined, 0)).toBe('first turn');
    // The second turn began after the first ended (t0 + 2000): the first turn's answer is not its own,
    // even while its own prompt has not landed either; its records land 300 ms after it is asked for.
    setTimeout(() => appendFileSync(file, started(t0 + 3000) + done(t0 + 4000, 'second turn')), 300);
    const t = Date.now();
    expect(await recordAnswer(file, 'codex', { since: t0 + 2000 }, 'first turn', 5000)).toBe('second turn');
    expect(Date.now() - t).toBeGreaterThanOrEqual(250);
    // The third turn's prompt is recorded, its answer is not: none within the wait.
    appendFileSync(file, started(t0 + 6000));
    expect(await recordAnswer(file, 'codex', { since: t0 + 5000 }, 'second turn', 200)).toBe('none');
    // Its answer is the same words as the turn before: still this turn's (its prompt is).
    appendFileSync(file, done(t0 + 7000, 'second turn'));
    expect(await recordAnswer(file, 'codex', { since: t0 + 5000 }, 'second turn', 0)).toBe('second turn');
    // No file at all: undefined at once.
    const t2 = Date.now();
    expect(
      await recordAnswer(path.join(dir, 'none.jsonl'), 'codex', { since: undefined }, undefined, 3000),
    ).toBeUndefined();
    expect(Date.now() - t2).toBeLessThan(1000);
  });

  it('records that say no time: a new answer is one that differs from the one taken before', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-late-'));
    const file = path.join(dir, 'rollout.jsonl');
    const untimed = (text: string): string =>
      `${JSON.stringify({ type: 'event_msg', payload: { type: 'task_complete', last_agent_message: text } })}\n`;
    writeFileSync(file, untimed('first turn'));
    expect(await recordAnswer(file, 'codex', { since: Date.now() }, undefined, 0)).toBe('first turn');
    expect(await recordAnswer(file, 'codex', { since: Date.now() }, 'first turn', 200)).toBe('none');
  });
});

describe("a job's record file", () => {
  it("Claude Code's transcript of its session; Codex's rollout of the session its host learnt, newest days first", async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-codex-'));
    const id = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
    for (const day of ['2026/11/29', '2026/11/30']) mkdirSync(path.join(home, 'sessions', day), { recursive: true });
    const rollout = path.join(home, 'sessions', '2026/11/29', `rollout-2026-11-29T10-00-00-${id}.jsonl`);
    writeFileSync(rollout, '');
    writeFileSync(
      path.join(
        home,
        'sessions',
        '2026/11/30',
        'rollout-2026-11-30T10-00-00-0199a1b2-0000-0000-0000-000000000000.jsonl',
      ),
      '',
    );
    const env = { CODEX_HOME: home, CLAUDE_CONFIG_DIR: '/c' };
    const job = { cwd: '/home/dev/proj', sessionId: '9f20f47d-cc3d-4e6d-87b3-695a2d35486a', resumeSessionId: null };
    expect(jobRecordFile({ ...job, agent: 'codex', resumeSessionId: id }, env)).toBe(rollout);
    expect(
      jobRecordFile({ ...job, agent: 'codex', resumeSessionId: '0199a1b2-ffff-ffff-ffff-ffffffffffff' }, env),
    ).toBeUndefined();
    expect(jobRecordFile({ ...job, agent: 'codex', resumeSessionId: '../../etc/passwd' }, env)).toBeUndefined();
    expect(jobRecordFile({ ...job, agent: 'codex' }, env)).toBeUndefined();
    expect(jobRecordFile({ ...job, agent: 'claude' }, env)).toBe(
      '/c/projects/-home-dev-proj/9f20f47d-cc3d-4e6d-87b3-695a2d35486a.jsonl',
    );
    expect(jobRecordFile({ ...job, agent: 'gemini' }, env)).toBeUndefined();
  });
});
