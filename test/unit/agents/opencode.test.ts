import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { OpenCodeEvents, OpenCodeStream, opencodeTurn } from '../../../src/agents/opencode.js';
import type { RecordSignal } from '../../../src/shared/types.js';
import type { OpenCodeMessage } from '../../../src/agents/opencode.js';
import { opencodeDataDir, readStore } from '../../../src/agents/opencode.js';
import { sqliteSupport } from '../../../src/records/sqlite.js';
import messages from '../../fixtures/records/opencode-messages.json';
import { until } from '../../helpers/wait.js';

const FIX = path.resolve(__dirname, '../../fixtures/records');
const quiet = { debug: (): void => undefined };
const real = messages as OpenCodeMessage[];
const said = (ms: readonly OpenCodeMessage[], answer?: string): string => {
  const s = opencodeTurn(ms, answer);
  return s ? `${s.state}: ${s.detail}` : 'nothing';
};

describe("OpenCode 1.18.33's messages (real rows of its store): the turn's state", () => {
  it('step by step through a shell command, an edit, two Escapes with a prompt queued, an API error', () => {
    // The rows as they stand at the end of the session, taken in the order they were made.
    const seen = real.map((_, i) => said(real.slice(0, i + 1)));
    expect(seen).toEqual([
      'working: prompt',
      'working: running tools',
      'completed: answered',
      'working: prompt',
      'working: running tools',
      'completed: answered',
      'working: prompt',
      'failed: interrupted',
      // The prompt typed while it answered, dropped by the interrupt: no new turn.
      'failed: interrupted',
      'working: prompt',
      'failed: Bad request from the mock',
    ]);
    expect(said(real.slice(0, 3), 'Done: the change is made.')).toBe('completed: Done: the change is made.');
  });

  it('a step not completed yet is Working, and stays so with a prompt queued under it', () => {
    const running = real
      .slice(0, 8)
      .map((m, i) =>
        i === 7 ? { ...m, data: { ...(m.data as object), time: { created: m.created }, error: undefined } } : m,
      );
    expect(said(running)).toBe('working: answering');
    expect(said([...running, real[8]!])).toBe('working: answering');
  });

  it('no messages, or rows that are not messages, say nothing', () => {
    expect(opencodeTurn([])).toBeNull();
    expect(
      opencodeTurn([
        { id: 'x', created: 1, data: 'text' },
        { id: 'y', created: 2, data: null },
      ]),
    ).toBeNull();
  });
});

describe('OpenCode: its data folder', () => {
  it('is under XDG_DATA_HOME, else ~/.local/share', () => {
    expect(opencodeDataDir({ HOME: '/home/x' })).toBe('/home/x/.local/share/opencode');
    expect(opencodeDataDir({ HOME: '/home/x', XDG_DATA_HOME: '/data' })).toBe('/data/opencode');
  });
});

const sqlite = sqliteSupport();

describe.skipIf(!sqlite.ok)('OpenCode 1.18.33: its store (a real database) read with node:sqlite', () => {
  type Db = { exec(sql: string): void; prepare(sql: string): { run(...p: unknown[]): unknown }; close(): void };
  const open = (file: string): Db => {
    const { DatabaseSync } = (
      process as unknown as { getBuiltinModule(id: string): { DatabaseSync: new (f: string) => Db } }
    ).getBuiltinModule('node:sqlite');
    return new DatabaseSync(file);
  };
  const copy = (): string => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'madohub-opencode-')), 'opencode.db');
    copyFileSync(path.join(FIX, 'opencode.db'), file);
    return file;
  };
  const place = { cwd: '/home/dev/proj', startedAt: 1796037737000 };

  it('finds the session of the process (its folder, created after it started, not claimed) and reads its state', () => {
    const db = copy();
    const last = readStore(db, place, undefined, new Set());
    expect(last).toMatchObject({
      sessionId: 'ses_dd3cf018dffepNCcIjaxLdZzpf',
      signal: { state: 'failed', detail: 'Bad request from the mock', source: 'session-db' },
    });
    // A process that started before all three sessions: the earliest; the claimed one is not taken again.
    const early = { ...place, startedAt: 1796037600000 };
    expect(readStore(db, early, undefined, new Set())).toMatchObject({
      sessionId: 'ses_dd3d030b9ffeJKYxpmZ6HGN0bM',
      signal: { state: 'completed', detail: 'Hello from the mock. The parser looks fine.' },
    });
    expect(
      readStore(db, early, undefined, new Set(['opencode-session:ses_dd3d030b9ffeJKYxpmZ6HGN0bM'])).sessionId,
    ).toBe('ses_dd3cf8813ffeVl8h9rRRsgAgtF');
    // Another folder, or a process started after every session: none yet.
    expect(readStore(db, { ...place, cwd: '/elsewhere' }, undefined, new Set()).sessionId).toBeUndefined();
    expect(readStore(db, { ...place, startedAt: 1796037800000 }, undefined, new Set())).toEqual({
      sessionId: undefined,
    });
  });

  it('reads while OpenCode writes (WAL), without keeping it waiting; a locked store is waited for briefly, not long', () => {
    const db = copy();
    const writer = open(db);
    writer.exec('PRAGMA journal_mode = WAL');
    writer.exec('BEGIN IMMEDIATE');
    writer
      .prepare('INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)')
      .run(
        'msg_zzz',
        'ses_dd3cf018dffepNCcIjaxLdZzpf',
        1796037900000,
        1796037900000,
        JSON.stringify({ role: 'user', time: { created: 1796037900000 } }),
      );
    // Not committed: the read sees the last committed state, and the writer is not blocked by it.
    expect(readStore(db, place, undefined, new Set()).signal?.state).toBe('failed');
    writer.exec('COMMIT');
    expect(readStore(db, place, undefined, new Set()).signal).toMatchObject({ state: 'working', detail: 'prompt' });
    // A store held in an exclusive lock by its writer: an error after the short busy wait.
    writer.exec('PRAGMA journal_mode = DELETE');
    writer.exec('PRAGMA locking_mode = EXCLUSIVE');
    writer.exec('BEGIN EXCLUSIVE');
    const t = Date.now();
    expect(readStore(db, place, undefined, new Set()).error).toMatch(/locked|busy/i);
    expect(Date.now() - t).toBeLessThan(1000);
    writer.exec('COMMIT');
    writer.close();
  });

  it('a store that is missing, not SQLite, or holds huge or broken rows: an error or nothing, never a throw', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'madohub-opencode-'));
    expect(readStore(path.join(dir, 'missing.db'), place, undefined, new Set()).error).toBeTruthy();
    writeFileSync(path.join(dir, 'junk.db'), 'this is not a database'.repeat(100));
    expect(readStore(path.join(dir, 'junk.db'), place, undefined, new Set()).error).toBeTruthy();
    // A FIFO in its place: refused at once (SQLite would wait on it), a folder too.
    execFileSync('mkfifo', [path.join(dir, 'fifo.db')]);
    expect(readStore(path.join(dir, 'fifo.db'), place, undefined, new Set()).error).toMatch(/not a regular file/);
    expect(readStore(dir, place, undefined, new Set()).error).toMatch(/not a regular file/);
    const db = copy();
    const w = open(db);
    const add = w.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    );
    add.run(
      'msg_huge',
      'ses_dd3cf018dffepNCcIjaxLdZzpf',
      1796037950000,
      0,
      JSON.stringify({ role: 'user', pad: 'x'.repeat(400_000) }),
    );
    add.run('msg_bad', 'ses_dd3cf018dffepNCcIjaxLdZzpf', 1796037960000, 0, '{not json');
    w.close();
    // Neither counts: the last real message still decides.
    expect(readStore(db, place, undefined, new Set()).signal).toMatchObject({ state: 'failed' });
  });
});

describe("OpenCode's event stream (its server's GET /event)", () => {
  const real = readFileSync(path.join(__dirname, '../../fixtures/records/opencode-events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const states = (events: readonly unknown[]): string[] => {
    const r = new OpenCodeEvents();
    const out: string[] = [];
    for (const e of events) {
      const s = r.take(e);
      if (s && out.at(-1) !== `${s.state} ${s.detail}`) out.push(`${s.state} ${s.detail}`);
    }
    return out;
  };
  it('reads what 1.18.33 sent in a session: an approval, a question, retries, an API error, an interrupt', () => {
    expect(states(real)).toEqual([
      'working working',
      'waiting bash: touch mock-ran.txt',
      'working answered',
      'working working',
      'completed answered',
      'working working',
      'waiting Which colour should the button be?',
      'working answered',
      'working working',
      'completed answered',
      'working working',
      'working retrying: Mock overloaded',
      'working working',
      'working retrying: Mock overloaded',
      'working working',
      'working retrying: Mock overloaded',
      'working working',
      'working retrying: Mock overloaded',
      'working working',
      'working retrying: Mock overloaded',
      'completed answered',
      'working working',
      'failed Mock refuses this request',
      'working working',
      'failed interrupted',
    ]);
    const one = new OpenCodeEvents().take(real.find((e) => e.type === 'permission.asked'));
    expect(one).toMatchObject({ state: 'waiting', source: 'event-stream' });
  });
  it("a sub-agent's session, hostile and unknown events tell nothing; a detail carries no control character", () => {
    const r = new OpenCodeEvents();
    r.take({
      type: 'session.created',
      properties: { sessionID: 'child', info: { id: 'child', parentID: 'ses_main' } },
    });
    expect(
      r.take({ type: 'session.status', properties: { sessionID: 'child', status: { type: 'busy' } } }),
    ).toBeUndefined();
    for (const bad of [
      null,
      'x',
      [],
      { type: 'session.status' },
      { type: 'session.status', properties: { status: { type: 'busy' } } },
      { type: 'x.y', properties: { sessionID: 's' } },
    ]) {
      expect(r.take(bad)).toBeUndefined();
    }
    const asked = r.take({
      type: 'question.asked',
      properties: { sessionID: 's', questions: [{ question: 'Pick\u001b[31m one\u0007' }] },
    });
    expect(asked?.detail).toBe('Pick [31m one');
  });
  it('is followed once its process listens, from the real events of a server', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const e of real) res.write(`data: ${JSON.stringify(e)}\n\n`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const got: RecordSignal[] = [];
    let looks = 0;
    const stream = new OpenCodeStream(
      1234,
      (s) => got.push(s),
      quiet,
      () => (++looks < 2 ? [] : [port]),
    );
    try {
      stream.start();
      await until(() => got.some((s) => s.detail === 'interrupted'));
      expect(looks).toBe(2);
      expect(got.map((s) => s.state)).toContain('waiting');
      expect(got.at(-1)).toMatchObject({ state: 'failed', detail: 'interrupted', source: 'event-stream' });
    } finally {
      stream.stop();
      server.close();
    }
  });
});
