import { appendFileSync, mkdtempSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { JsonlTail } from '../../../src/records/tail.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'madohub-tail-'));
});

function collect(file: string, backlogBytes = 0) {
  const records: unknown[] = [];
  const bad: string[] = [];
  const tail = new JsonlTail(file, {
    onRecord: (v) => records.push(v),
    onBadLine: (l) => bad.push(l),
    backlogBytes,
  });
  return { tail, records, bad };
}

describe('JsonlTail', () => {
  it('reads only what was appended', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"n":1}\n{"n":2}\n');
    const { tail, records } = collect(file);
    expect(await tail.read()).toBe(2);
    appendFileSync(file, '{"n":3}\n');
    expect(await tail.read()).toBe(1);
    expect(records).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(await tail.read()).toBe(0);
  });

  it('a partial last line waits for its end', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"n":1}\n{"n":');
    const { tail, records } = collect(file);
    await tail.read();
    expect(records).toEqual([{ n: 1 }]);
    appendFileSync(file, '2}\n');
    await tail.read();
    expect(records).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('a multi-byte character cut between two reads survives', async () => {
    const file = path.join(dir, 'a.jsonl');
    const line = Buffer.from('{"t":"✻ Baked"}\n');
    writeFileSync(file, line.subarray(0, 8)); // cuts inside ✻
    const { tail, records } = collect(file);
    await tail.read();
    appendFileSync(file, line.subarray(8));
    await tail.read();
    expect(records).toEqual([{ t: '✻ Baked' }]);
  });

  it('skips garbage lines and goes on', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"n":1}\nnot json\n\n{"n":2}\n');
    const { tail, records, bad } = collect(file);
    await tail.read();
    expect(records).toEqual([{ n: 1 }, { n: 2 }]);
    expect(bad).toEqual(['not json']);
  });

  it('a truncated file is read again from its start', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"n":1}\n{"n":2}\n');
    const { tail, records } = collect(file);
    await tail.read();
    truncateSync(file, 0);
    appendFileSync(file, '{"n":9}\n');
    await tail.read();
    expect(records).toEqual([{ n: 1 }, { n: 2 }, { n: 9 }]);
  });

  it('a replaced file (same size or larger) is read again from its start', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"n":1}\n');
    const { tail, records } = collect(file);
    await tail.read();
    const next = path.join(dir, 'b.jsonl');
    writeFileSync(next, '{"n":7}\n{"n":8}\n');
    renameSync(next, file);
    await tail.read();
    expect(records).toEqual([{ n: 1 }, { n: 7 }, { n: 8 }]);
  });

  it('a missing file is nothing, until it appears', async () => {
    const file = path.join(dir, 'later.jsonl');
    const { tail, records } = collect(file);
    expect(await tail.read()).toBe(0);
    writeFileSync(file, '{"n":1}\n');
    expect(await tail.read()).toBe(1);
    expect(records).toEqual([{ n: 1 }]);
  });

  it('overlapping calls read each byte once', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, '{"n":1}\n');
    const { tail, records } = collect(file);
    await Promise.all([tail.read(), tail.read(), tail.read()]);
    expect(records).toEqual([{ n: 1 }]);
  });

  it('a 100 MB transcript costs its backlog and then the new bytes, not the file', async () => {
    const file = path.join(dir, 'big.jsonl');
    const line = `${JSON.stringify({ type: 'assistant', message: { content: 'x'.repeat(1000) } })}\n`;
    const block = line.repeat(1024); // ~1 MB
    const fh = await open(file, 'w');
    for (let i = 0; i < 100; i++) await fh.write(block);
    await fh.write('{"type":"system","subtype":"turn_duration","durationMs":1000}\n');
    await fh.close();
    const { tail, records } = collect(file, 64 * 1024);
    const before = process.memoryUsage().heapUsed;
    await tail.read();
    const grew = process.memoryUsage().heapUsed - before;
    // Only whole lines of the last 64 KiB: about 60 records, the last one the turn's end.
    expect(records.length).toBeGreaterThan(50);
    expect(records.length).toBeLessThan(70);
    expect(records[records.length - 1]).toMatchObject({ subtype: 'turn_duration' });
    expect(grew).toBeLessThan(20 * 1024 * 1024);
    appendFileSync(file, '{"n":"new"}\n');
    expect(await tail.read()).toBe(1);
    expect(records[records.length - 1]).toEqual({ n: 'new' });
  });

  it('an endless line is dropped, memory stays bounded, and reading goes on', async () => {
    const file = path.join(dir, 'a.jsonl');
    writeFileSync(file, `{"n":1}\n${'y'.repeat(3000)}\n{"n":2}\n`);
    const records: unknown[] = [];
    const bad: string[] = [];
    const tail = new JsonlTail(file, {
      onRecord: (v) => records.push(v),
      onBadLine: (l) => bad.push(l),
      maxLineBytes: 1000,
      chunkBytes: 512,
    });
    await tail.read();
    expect(records).toEqual([{ n: 1 }, { n: 2 }]);
    expect(bad).toHaveLength(1);
  });
});
