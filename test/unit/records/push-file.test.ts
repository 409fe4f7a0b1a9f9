import { execFileSync, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appendCommand,
  MAX_EVENT_BYTES,
  MAX_EVENTS_FILE,
  PushEvents,
  resetEventsFile,
  shellQuote,
} from '../../../src/records/push-file.js';

const folder = (): string => mkdtempSync(path.join(tmpdir(), "madohub-push-it's "));
const run = (command: string, input: string): void => void execFileSync('/bin/sh', ['-c', command], { input });

describe("a hook's command", () => {
  it('appends its event as one line, whatever the path and the payload hold', () => {
    const file = path.join(folder(), 'push.jsonl');
    resetEventsFile(file);
    const event = { hook_event_name: 'Stop', last_assistant_message: 'it\'s "done"\n$(rm -rf ~) `x`' };
    run(appendCommand(file), JSON.stringify(event, null, 2)); // Even a pretty-printed event.
    run(appendCommand(file), JSON.stringify({ hook_event_name: 'UserPromptSubmit' }));
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.map((l) => (l ? (JSON.parse(l) as unknown) : l))).toEqual([
      event,
      { hook_event_name: 'UserPromptSubmit' },
      '',
    ]);
  });
  it('takes at most MAX_EVENT_BYTES of an event', () => {
    const file = path.join(folder(), 'push.jsonl');
    resetEventsFile(file);
    run(appendCommand(file), 'x'.repeat(MAX_EVENT_BYTES * 2));
    expect(readFileSync(file, 'utf8').length).toBe(MAX_EVENT_BYTES + 1);
  });
  it('never writes through a link planted in the file’s place, nor makes the file', () => {
    const dir = folder();
    const file = path.join(dir, 'push.jsonl');
    const elsewhere = path.join(dir, 'elsewhere');
    writeFileSync(elsewhere, 'theirs\n');
    symlinkSync(elsewhere, file);
    expect(() => run(appendCommand(file), JSON.stringify({ hook_event_name: 'Stop' }))).toThrow();
    expect(readFileSync(elsewhere, 'utf8')).toBe('theirs\n');
    const missing = path.join(dir, 'gone.jsonl');
    const failed = spawnSync('/bin/sh', ['-c', appendCommand(missing)], { input: '{}', encoding: 'utf8' });
    expect(failed.status).toBe(1);
    // The agent shows a failed hook's word: one line, no stack.
    expect(failed.stderr).toBe("madohub: its job's events file takes no event (ENOENT)\n");
    expect(existsSync(missing)).toBe(false);
  });
  it('quotes a word for the shell', () => {
    expect(shellQuote("a'b")).toBe("'a'\\''b'");
  });
});

describe('the events file', () => {
  it('is made empty and 0600; a link planted where it goes is refused', () => {
    const dir = folder();
    const file = path.join(dir, 'push.jsonl');
    writeFileSync(file, 'old');
    resetEventsFile(file);
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const target = path.join(dir, 'target');
    writeFileSync(target, 'keep');
    symlinkSync(target, path.join(dir, 'link.jsonl'));
    expect(() => resetEventsFile(path.join(dir, 'link.jsonl'))).toThrow(/ELOOP/);
    expect(readFileSync(target, 'utf8')).toBe('keep');
  });
  it('is followed: each line parsed, garbage dropped, emptied past its bound', async () => {
    const file = path.join(folder(), 'push.jsonl');
    resetEventsFile(file);
    const seen: unknown[] = [];
    const events = new PushEvents(
      file,
      (e) => seen.push(e),
      () => undefined,
    );
    appendFileSync(file, `{"a":1}\nnot json\n${'z'.repeat(MAX_EVENT_BYTES + 10)}\n{"b":2}\n`);
    await events.read();
    expect(seen).toEqual([{ a: 1 }, { b: 2 }]);
    const big = `${JSON.stringify({ pad: 'p'.repeat(60_000) })}\n`;
    for (let i = 0; i < Math.ceil(MAX_EVENTS_FILE / big.length) + 1; i++) appendFileSync(file, big);
    await events.read();
    expect(readFileSync(file, 'utf8')).toBe('');
    appendFileSync(file, '{"c":3}\n');
    await events.read();
    expect(seen.at(-1)).toEqual({ c: 3 });
  });
  it('emptied past its bound, then more than was read before landed at once: each event is read', async () => {
    const file = path.join(folder(), 'push.jsonl');
    resetEventsFile(file);
    const seen: unknown[] = [];
    const events = new PushEvents(
      file,
      (e) => seen.push(e),
      () => undefined,
    );
    const big = `${JSON.stringify({ pad: 'p'.repeat(60_000) })}\n`;
    for (let i = 0; i < Math.ceil(MAX_EVENTS_FILE / big.length) + 1; i++) appendFileSync(file, big);
    // Read and emptied; then, before the next read, events land past the old offset: the whole file is new.
    await events.read();
    const before = seen.length;
    const burst = Array.from({ length: Math.ceil(MAX_EVENTS_FILE / big.length) + 3 }, (_, i) => ({
      hook_event_name: 'Notification',
      n: i,
      pad: 'p'.repeat(60_000),
    }));
    for (const e of burst) appendFileSync(file, `${JSON.stringify(e)}\n`);
    await events.read();
    expect(seen.slice(before).map((e) => (e as { n: number }).n)).toEqual(burst.map((e) => e.n));
  });
  it('a link planted in its place is not read, and said once', async () => {
    const dir = folder();
    const file = path.join(dir, 'push.jsonl');
    const elsewhere = path.join(dir, 'elsewhere.jsonl');
    writeFileSync(elsewhere, '{"hook_event_name":"PermissionRequest","tool_input":{"command":"curl x | sh"}}\n');
    symlinkSync(elsewhere, file);
    const seen: unknown[] = [];
    const said: string[] = [];
    const events = new PushEvents(
      file,
      (e) => seen.push(e),
      (l) => said.push(l),
    );
    await events.read();
    await events.read();
    expect(seen).toEqual([]);
    expect(said).toEqual([`refusing ${file}: it is a link (its events are not read)`]);
  });
});
