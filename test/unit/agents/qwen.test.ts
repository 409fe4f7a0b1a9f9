import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { qwen, qwenChatPath, qwenChatRecord, qwenHome, QwenRecords, qwenSession } from '../../../src/agents/qwen.js';
import { agentOfProcess, detectScreen, draftOf, identifyScreen, promptOf } from '../../../src/agents/index.js';
import { commandLine, DEFAULT_TEMPLATES } from '../../../src/jobs/templates.js';
import { optionsOf, questionOf } from '../../../src/detect/question.js';
import type { RecordLog } from '../../../src/records/follow.js';
import type { FolderWatcher } from '../../../src/records/folders.js';
import type { ProcessInfo, RecordSignal } from '../../../src/shared/types.js';
import { agentScreens, following, recordsOf, stateRuns, typeOf, until } from './fixtures.js';

const fixtures = agentScreens('qwen');
const chat = recordsOf('qwen-chat.jsonl');
const question = recordsOf('qwen-chat-question.jsonl');
const screenOf = (name: string): { lines: string[]; title: string } => ({
  lines: fixtures[name]!.lines,
  title: fixtures[name]!.title,
});
const linesOf = (name: string): string[] => fixtures[name]!.lines;
const proc = (comm: string, argv: string[]): ProcessInfo => ({ pid: 2, ppid: 1, comm, argv, exe: '/usr/bin/node' });

describe('Qwen Code: its screens, as 0.24.4 draws them', () => {
  it.each(Object.keys(fixtures))('%s', (name) => {
    const f = fixtures[name]!;
    expect(identifyScreen(screenOf(name))).toBe('qwen');
    expect(detectScreen(screenOf(name))).toMatchObject({ agent: f.expect.agent, state: f.expect.state });
  });

  it('is itself without its title too (its footer), though its input line is Gemini CLI’s', () => {
    for (const name of ['qwen-real-idle', 'qwen-real-done', 'qwen-real-error'])
      expect(identifyScreen({ lines: linesOf(name), title: '' })).toBe('qwen');
  });

  it('says what it asks (the picker’s question and choices), and what failed', () => {
    expect(questionOf(linesOf('qwen-real-shell-approval'))).toMatch(/Allow execution of: 'touch'\?/);
    expect(optionsOf(linesOf('qwen-real-shell-approval')).length).toBe(4);
    expect(questionOf(linesOf('qwen-real-edit-approval'))).toMatch(/Apply this change\?/);
    expect(questionOf(linesOf('qwen-real-question'))).toMatch(/Which colour should the button be\?/);
    expect(detectScreen(screenOf('qwen-real-error')).detail).toMatch(/API Error: 400 Mock refuses this request/);
  });

  it('the first prompt it echoes; a draft has its cursor’s zero-width space after it, a suggested prompt none', () => {
    expect(promptOf('qwen', linesOf('qwen-real-done'))).toBe('/approval-mode default');
    expect(draftOf('qwen', linesOf('qwen-real-draft'))).toBe('say hello');
    // Escape put the cancelled prompt back into the input line: a draft.
    expect(draftOf('qwen', linesOf('qwen-real-interrupted'))).toBe('slow two');
    // After a turn: a suggestion in the input line, drawn like a draft but for the cursor's mark.
    expect(draftOf('qwen', linesOf('qwen-real-approved-done'))).toBeUndefined();
    expect(draftOf('qwen', linesOf('qwen-real-idle'))).toBeUndefined();
  });

  it('its process: node running its cli.js (which runs itself again)', () => {
    expect(agentOfProcess(proc('node', ['node', '/n/node_modules/.bin/qwen']))).toBe('qwen');
    expect(
      agentOfProcess(proc('node', ['/usr/bin/node', '--expose-gc', '/n/node_modules/@qwen-code/qwen-code/cli.js'])),
    ).toBe('qwen');
    expect(agentOfProcess(proc('node', ['node', '/n/node_modules/qwen-helper/cli.js']))).toBeUndefined();
  });
});

describe('Qwen Code: its records', () => {
  it('the chat of a real session, replayed: each turn’s states in order', () => {
    // The mode set; say hello; slow please; run (approved); write (Escape on its approval); slow two
    // (Escape while it works), this will fail (Escape), this will fail badly (an API error): no record
    // of these three but their prompts.
    expect(stateRuns(chat, qwenChatRecord)).toEqual([
      'working',
      'completed',
      'working',
      'completed',
      'working',
      'completed',
      'working',
      'failed',
      'working',
    ]);
  });

  it('a question asked and answered, and what each state says', () => {
    expect(stateRuns(question, qwenChatRecord)).toEqual(['working', 'completed']);
    const cancelled = chat.find(
      (e) => typeOf(e) === 'tool_result' && JSON.stringify(e).includes('[Operation Cancelled]'),
    );
    expect(qwenChatRecord(cancelled)).toMatchObject({
      state: 'failed',
      detail: 'interrupted',
      source: 'jsonl-watcher',
    });
    expect(qwenChatRecord(chat.find((e) => typeOf(e) === 'assistant'))).toMatchObject({
      state: 'completed',
      detail: 'You said: say hello',
    });
    expect(qwenChatRecord(chat.find((e) => typeOf(e) === 'system'))).toBeNull();
    // A call of a tool tells nothing new: its approval shows on the screen as it is written.
    expect(
      qwenChatRecord(chat.find((e) => typeOf(e) === 'assistant' && JSON.stringify(e).includes('functionCall'))),
    ).toBeNull();
    for (const v of [
      null,
      3,
      'x',
      [],
      { type: 'assistant', message: 'no' },
      { type: 'tool_result', message: { parts: [7] } },
    ])
      expect(() => qwenChatRecord(v)).not.toThrow();
  });

  it('a finished answer: the last text after the last prompt', () => {
    expect(qwen.answerOf!(question)?.text).toBe('Done: ran it.');
    const firstDone = chat.findIndex((e) => qwenChatRecord(e)?.state === 'completed');
    expect(qwen.answerOf!(chat.slice(0, firstDone + 1))?.text).toBe('You said: say hello');
    expect(qwen.answerOf!(chat)).toBeUndefined();
  });

  it('its folder, a session’s chat, and no path out of it', () => {
    expect(qwenHome({ HOME: '/h' })).toBe('/h/.qwen');
    expect(qwenHome({ HOME: '/h', QWEN_HOME: '/q' })).toBe('/q');
    expect(qwenChatPath('/h/.qwen', '/tmp/cap/qproj', 'abc')).toBe('/h/.qwen/projects/-tmp-cap-qproj/chats/abc.jsonl');
    expect(qwenChatPath('/h/.qwen', '/p', '../../x')).toBeUndefined();
    expect(qwen.jobRecordFile!({ cwd: '/p', sessionId: 's', resumeSessionId: 'r' }, { HOME: '/h' })).toBe(
      '/h/.qwen/projects/-p/chats/r.jsonl',
    );
  });

  it('a registry file names its own pid’s session; another pid’s, a newer schema or a relative folder is none', () => {
    const entry = {
      schemaVersion: 1,
      pid: 15828,
      sessionId: '015b4505-6eb8-4edb-8f02-4cfcf14a7992',
      cwd: '/tmp/cap/qproj',
      name: 'qproj-86',
      kind: 'tui',
      ipcToken: 'x',
    };
    expect(qwenSession(entry, 15828)).toEqual({ sessionId: entry.sessionId, cwd: entry.cwd });
    expect(qwenSession(entry, 1)).toBeUndefined();
    expect(qwenSession({ ...entry, schemaVersion: 2 }, 15828)).toBeUndefined();
    expect(qwenSession({ ...entry, cwd: 'rel' }, 15828)).toBeUndefined();
    expect(qwenSession({ ...entry, sessionId: '../x' }, 15828)).toBeUndefined();
  });

  it('follows the chat its registry file names, and the next one after /clear', async () => {
    const home = mkdtempSync(path.join(tmpdir(), 'madohub-qwen-'));
    mkdirSync(path.join(home, 'sessions'), { recursive: true });
    const make = (folders: FolderWatcher, emit: (s: RecordSignal) => void, log: RecordLog): QwenRecords =>
      new QwenRecords(home, 4242, folders, emit, log);
    const register = (sessionId: string): string => {
      writeFileSync(
        path.join(home, 'sessions', '4242.json'),
        JSON.stringify({ schemaVersion: 1, pid: 4242, sessionId, cwd: '/work/p' }),
      );
      const file = qwenChatPath(home, '/work/p', sessionId)!;
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, '');
      return file;
    };
    await following(make, async (follower, got) => {
      const first = register('one');
      await until(() => follower.recordFile === first);
      expect(follower.sessionId).toBe('one');
      appendFileSync(first, `${JSON.stringify(chat.find((e) => typeOf(e) === 'user'))}\n`);
      await until(() => got.at(-1)?.state === 'working');
      expect(got.at(-1)?.state).toBe('working');
      const second = register('two');
      await until(() => follower.recordFile === second);
      expect(follower.recordFile).toBe(second);
      appendFileSync(second, `${JSON.stringify(chat.find((e) => typeOf(e) === 'assistant'))}\n`);
      await until(() => got.at(-1)?.state === 'completed');
      expect(got.at(-1)).toMatchObject({ state: 'completed', detail: 'You said: say hello' });
    });
  });

  it('a job runs it with its own session id, typed its first prompt, resumed by id', () => {
    const t = DEFAULT_TEMPLATES.qwen!;
    expect(commandLine(t, 'fix it', undefined, false, 'S')).toEqual(['qwen', '--session-id', 'S']);
    expect(commandLine(t, '', { mode: 'id', id: 'R' }, false, 'S')).toEqual(['qwen', '--resume', 'R']);
    expect(qwen.menuKeys!(3, 1)).toBe('3');
  });
});
