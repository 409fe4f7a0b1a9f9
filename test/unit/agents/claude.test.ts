import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordSignal } from '../../../src/shared/types.js';
import {
  claude,
  ClaudeRecords,
  claudeConfigDir,
  claudeHookSignal,
  claudeTranscriptPath,
} from '../../../src/agents/claude.js';
import { FolderWatcher } from '../../../src/records/folders.js';
import { appendCommand } from '../../../src/records/push-file.js';
import { holds, until } from '../../helpers/wait.js';

const quiet = { debug: () => {} };

describe('Claude Code records in a temporary HOME', () => {
  const folders = new FolderWatcher();
  afterEach(async () => {
    await folders.close();
  });

  it('names its folder from CLAUDE_CONFIG_DIR or HOME, and the transcript from the cwd', () => {
    expect(claudeConfigDir({ HOME: '/h' })).toBe('/h/.claude');
    expect(claudeConfigDir({ HOME: '/h', CLAUDE_CONFIG_DIR: '/c' })).toBe('/c');
    expect(claudeTranscriptPath('/h/.claude', '/tmp/agents/home/proj', 'abc')).toBe(
      '/h/.claude/projects/-tmp-agents-home-proj/abc.jsonl',
    );
  });

  it('follows the session file of its pid and the transcript it names, and a new session after /clear', async () => {
    const config = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-claude-')), '.claude');
    mkdirSync(path.join(config, 'sessions'), { recursive: true });
    const signals: RecordSignal[] = [];
    const records = new ClaudeRecords(config, 4242, folders, (s) => signals.push(s), quiet);
    records.start();
    const session = (sessionId: string, status: string): void =>
      writeFileSync(
        path.join(config, 'sessions', '4242.json'),
        JSON.stringify({ pid: 4242, sessionId, cwd: '/p', status }),
      );
    // Another process's session file says nothing about this one.
    writeFileSync(
      path.join(config, 'sessions', '999.json'),
      JSON.stringify({ pid: 999, sessionId: 'x', cwd: '/p', status: 'busy' }),
    );
    session('s1', 'busy');
    expect(await until(() => signals.some((s) => s.source === 'session-file' && s.state === 'working'))).toBe(true);
    const t1 = claudeTranscriptPath(config, '/p', 's1');
    mkdirSync(path.dirname(t1), { recursive: true });
    appendFileSync(
      t1,
      '{"type":"user","message":{"content":"go"}}\nnot json\n{"type":"system","subtype":"turn_duration","durationMs":2000}\n',
    );
    expect(await until(() => signals.some((s) => s.state === 'completed'))).toBe(true);
    expect(signals.filter((s) => s.source === 'jsonl-watcher').map((s) => s.state)).toEqual(['completed']);
    // /clear: a new session id, a new transcript.
    session('s2', 'idle');
    const t2 = claudeTranscriptPath(config, '/p', 's2');
    expect(await until(() => records.recordFile === t2)).toBe(true);
    appendFileSync(t2, '{"type":"user","message":{"content":"[Request interrupted by user]"}}\n');
    expect(await until(() => signals.some((s) => s.state === 'failed'))).toBe(true);
    records.stop();
    const count = signals.length;
    session('s2', 'busy');
    expect(await holds(() => signals.length === count, 300)).toBe(true);
  });
});

describe("Claude Code's hooks (a job's own events)", () => {
  const events = readFileSync(path.join(__dirname, '../../fixtures/records/claude-hooks.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  it('reads each event 2.1.332 wrote in a session: a prompt, an approval, a turn ended, a failed turn', () => {
    expect(events.map((e) => [e.hook_event_name, claudeHookSignal(e)])).toEqual([
      ['SessionStart', undefined],
      ['UserPromptSubmit', { state: 'working', detail: 'prompt sent' }],
      ['PreToolUse', undefined],
      ['PermissionRequest', { state: 'waiting', detail: 'Bash: touch mock-ran.txt' }],
      ['Notification', { state: 'waiting', detail: 'Claude needs your permission', repeat: true }],
      ['PostToolUse', undefined],
      ['Stop', { state: 'completed', detail: 'Done: ran it.' }],
      ['UserPromptSubmit', { state: 'working', detail: 'prompt sent' }],
      ['StopFailure', { state: 'failed', detail: 'server_error' }],
      ['Notification', undefined],
      ['UserPromptSubmit', { state: 'working', detail: 'prompt sent' }],
      ['PreToolUse', undefined],
      ['PermissionRequest', { state: 'waiting', detail: expect.stringMatching(/^Write: \/.*new\.txt$/) }],
      ['UserPromptSubmit', { state: 'working', detail: 'prompt sent' }],
    ]);
  });
  it("a sub-agent's event, and what is no event, tell nothing", () => {
    const approval = events.find((e) => e.hook_event_name === 'PermissionRequest')!;
    expect(claudeHookSignal({ ...approval, agent_id: 'a1', agent_type: 'Explore' })).toBeUndefined();
    for (const bad of [null, 'Stop', [approval], { hook_event_name: 42 }, {}])
      expect(claudeHookSignal(bad)).toBeUndefined();
    expect(
      claudeHookSignal({ hook_event_name: 'Stop', last_assistant_message: 'x'.repeat(5000) })!.detail.length,
    ).toBeLessThanOrEqual(120);
  });
  it("a job's launch: --settings naming the job's own file, a hook per event appending to the events file", () => {
    const { args, settings } = claude.push!.launch(
      { settings: "/j/it's/push-settings.json", events: "/j/it's/push.jsonl" },
      {},
    );
    expect(args).toEqual(['--settings', "/j/it's/push-settings.json"]);
    const hooks = (
      JSON.parse(settings) as {
        hooks: Record<string, { hooks: { type: string; command: string; timeout: number }[] }[]>;
      }
    ).hooks;
    expect(Object.keys(hooks)).toEqual([
      'UserPromptSubmit',
      'PermissionRequest',
      'Notification',
      'Stop',
      'StopFailure',
    ]);
    for (const [, [group]] of Object.entries(hooks))
      expect(group!.hooks).toEqual([{ type: 'command', command: appendCommand("/j/it's/push.jsonl"), timeout: 5 }]);
  });
});
