import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RecordSignal } from '../../../src/shared/types.js';
import { ClaudeRecords, claudeConfigDir, claudeTranscriptPath } from '../../../src/agents/claude.js';
import { FolderWatcher } from '../../../src/records/folders.js';

const until = async (check: () => boolean, ms = 3000): Promise<boolean> => {
  const end = Date.now() + ms;
  while (Date.now() < end && !check()) await new Promise((r) => setTimeout(r, 10));
  return check();
};
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
      writeFileSync(path.join(config, 'sessions', '4242.json'), JSON.stringify({ pid: 4242, sessionId, cwd: '/p', status }));
    // Another process's session file says nothing about this one.
    writeFileSync(path.join(config, 'sessions', '999.json'), JSON.stringify({ pid: 999, sessionId: 'x', cwd: '/p', status: 'busy' }));
    session('s1', 'busy');
    expect(await until(() => signals.some((s) => s.source === 'session-file' && s.state === 'working'))).toBe(true);
    const t1 = claudeTranscriptPath(config, '/p', 's1');
    mkdirSync(path.dirname(t1), { recursive: true });
    appendFileSync(t1, '{"type":"user","message":{"content":"go"}}\nnot json\n{"type":"system","subtype":"turn_duration","durationMs":2000}\n');
    expect(await until(() => signals.some((s) => s.state === 'completed'))).toBe(true);
    expect(signals.filter((s) => s.source === 'jsonl-watcher').map((s) => s.state)).toEqual(['completed']);
    // /clear: a new session id, a new transcript.
    session('s2', 'idle');
    const t2 = claudeTranscriptPath(config, '/p', 's2');
    await new Promise((r) => setTimeout(r, 200));
    appendFileSync(t2, '{"type":"user","message":{"content":"[Request interrupted by user]"}}\n');
    expect(await until(() => signals.some((s) => s.state === 'failed'))).toBe(true);
    records.stop();
    const count = signals.length;
    session('s2', 'busy');
    await new Promise((r) => setTimeout(r, 300));
    expect(signals.length).toBe(count);
  });
});
