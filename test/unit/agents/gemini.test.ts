import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chatFolders,
  findChat,
  gemini,
  geminiDir,
  geminiHookSignal,
  readChatHeader,
} from '../../../src/agents/gemini.js';

const t0 = Date.parse('2026-11-30T10:00:00Z');

/** A chat as Gemini CLI 0.61 opens it: its header line, then the history it sets. */
function chat(folder: string, id: string, startedAt: number, kind = 'main'): string {
  mkdirSync(folder, { recursive: true });
  const stamp = new Date(startedAt).toISOString().slice(0, 16).replace(/:/g, '-');
  const file = path.join(folder, `session-${stamp}-${id.slice(0, 8)}.jsonl`);
  const at = new Date(startedAt).toISOString();
  writeFileSync(
    file,
    `${JSON.stringify({ sessionId: id, projectHash: 'f'.repeat(64), startTime: at, lastUpdated: at, kind })}\n` +
      `${JSON.stringify({ $set: { messages: [], lastUpdated: at } })}\n`,
  );
  return file;
}

describe('Gemini CLI chats: which one is a process’s', () => {
  it('its folder: the registry’s short id, else the SHA-256 of the folder', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-gemini-'));
    writeFileSync(
      path.join(dir, 'projects.json'),
      JSON.stringify({ projects: { '/p': 'proj-1', '/evil': '../../etc', '/dot': '..' } }),
    );
    const hash = createHash('sha256').update('/p').digest('hex');
    expect(chatFolders(dir, '/p')).toEqual([
      path.join(dir, 'tmp', 'proj-1', 'chats'),
      path.join(dir, 'tmp', hash, 'chats'),
    ]);
    // A short id that is no single path segment is not followed out of the folder.
    expect(chatFolders(dir, '/evil')).toHaveLength(1);
    expect(chatFolders(dir, '/dot')).toHaveLength(1);
    expect(geminiDir({ HOME: '/home/x' })).toBe('/home/x/.gemini');
    expect(geminiDir({ HOME: '/home/x', GEMINI_CLI_HOME: '/elsewhere' })).toBe('/elsewhere/.gemini');
  });

  it('a registry that is not JSON, not an object, or huge is no registry', () => {
    for (const text of [
      '{',
      '[]',
      '{"projects": 7}',
      JSON.stringify({ projects: { '/p': 'x' }, pad: 'y'.repeat(2 * 1024 * 1024) }),
    ]) {
      const dir = mkdtempSync(path.join(tmpdir(), 'madohub-gemini-'));
      writeFileSync(path.join(dir, 'projects.json'), text);
      expect(chatFolders(dir, '/p')).toHaveLength(1);
    }
  });

  it('two sessions in one folder are not crossed; a sub-agent’s chat and an older one are not it', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-gemini-'));
    const folder = path.join(dir, 'tmp', 'proj', 'chats');
    chat(folder, 'old00000-1111', t0 - 60_000);
    const first = chat(folder, 'aaaaaaaa-1111', t0 + 400);
    const second = chat(folder, 'bbbbbbbb-2222', t0 + 9_000);
    chat(folder, 'cccccccc-3333', t0 + 500, 'subagent');
    const claimed = new Set<string>();
    expect(findChat([folder], t0, claimed)).toBe(first);
    claimed.add(first);
    expect(findChat([folder], t0 + 8_000, claimed)).toBe(second);
    claimed.add(second);
    expect(findChat([folder], t0 + 20_000, claimed)).toBeUndefined();
    expect(readChatHeader(first)).toEqual({ sessionId: 'aaaaaaaa-1111', startedAt: t0 + 400, kind: 'main' });
  });

  it('a FIFO named like the registry or a chat is refused at once, not waited on', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-gemini-'));
    execFileSync('mkfifo', [path.join(dir, 'projects.json')]);
    expect(chatFolders(dir, '/p')).toHaveLength(1);
    const folder = path.join(dir, 'tmp', 'proj', 'chats');
    mkdirSync(folder, { recursive: true });
    execFileSync('mkfifo', [path.join(folder, 'session-2026-11-30T10-00-fifo0000.jsonl')]);
    const real = chat(folder, 'aaaaaaaa-1111', t0 + 400);
    expect(findChat([folder], t0, new Set())).toBe(real);
  });

  it('a chat whose header is not one, and a folder that is missing, are skipped', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-gemini-'));
    const folder = path.join(dir, 'chats');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'session-bad.jsonl'), 'not json\n');
    writeFileSync(path.join(folder, 'session-empty.jsonl'), '');
    expect(findChat([folder, path.join(dir, 'missing')], t0, new Set())).toBeUndefined();
  });
});

describe("Gemini CLI's hooks (a job's own events)", () => {
  const events = readFileSync(path.join(__dirname, '../../fixtures/records/gemini-hooks.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  it('reads what 0.61.0 gave its hooks: a prompt, a permission, an answer; a turn with no answer (an API error, an interrupt) says nothing', () => {
    expect(events.map((e) => [e.hook_event_name, geminiHookSignal(e)])).toEqual([
      ['SessionStart', undefined],
      ['BeforeAgent', { state: 'working', detail: 'prompt sent' }],
      ['BeforeTool', undefined],
      ['Notification', { state: 'waiting', detail: 'touch mock-ran.txt' }],
      ['AfterTool', undefined],
      ['AfterAgent', { state: 'completed', detail: 'I will run a command. Done: ran it.' }],
      ['BeforeAgent', { state: 'working', detail: 'prompt sent' }],
      ['AfterAgent', undefined],
      ['BeforeAgent', { state: 'working', detail: 'prompt sent' }],
      ['AfterAgent', undefined],
    ]);
    for (const bad of [null, [], { hook_event_name: 'Notification', notification_type: 'Other' }])
      expect(geminiHookSignal(bad)).toBeUndefined();
  });
  it("a job's settings: the system defaults kept, the job's hooks added, named by a variable for the job only", () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-gemini-defaults-'));
    const defaults = path.join(dir, 'system-defaults.json');
    writeFileSync(
      defaults,
      JSON.stringify({
        ui: { theme: 'x' },
        hooks: { AfterAgent: [{ hooks: [{ type: 'command', command: 'admin-hook' }] }] },
      }),
    );
    const { args, settings, env } = gemini.push!.launch(
      { settings: '/j/push-settings.json', events: '/j/push.jsonl' },
      { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: defaults },
    );
    expect(args).toEqual([]);
    expect(env).toEqual({ GEMINI_CLI_SYSTEM_DEFAULTS_PATH: '/j/push-settings.json' });
    const s = JSON.parse(settings) as {
      ui: unknown;
      hooks: Record<string, { hooks: { command: string; timeout: number }[] }[]>;
    };
    expect(s.ui).toEqual({ theme: 'x' });
    expect(Object.keys(s.hooks)).toEqual(['AfterAgent', 'BeforeAgent', 'Notification']);
    expect(s.hooks.AfterAgent!.map((g) => g.hooks[0]!.command)).toEqual([
      'admin-hook',
      expect.stringContaining("'/j/push.jsonl'"),
    ]);
    expect(s.hooks.BeforeAgent![0]!.hooks[0]!.timeout).toBe(5000);
    // No defaults file (or a hostile one): the job's hooks alone.
    writeFileSync(defaults, '[1,2]');
    expect(
      Object.keys(
        (
          JSON.parse(
            gemini.push!.launch({ settings: 's', events: 'e' }, { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: defaults }).settings,
          ) as { hooks: object }
        ).hooks,
      ),
    ).toEqual(['BeforeAgent', 'Notification', 'AfterAgent']);
  });
});
