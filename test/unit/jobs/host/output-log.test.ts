import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderEach } from '../../../helpers/files.js';
import { LOG_MAX_BYTES, OutputLog } from '../../../../src/jobs/host/output-log.js';

const folder = folderEach('madohub-output-log-');

describe("a job's output log", () => {
  it('writes each chunk as it comes (0600), rotating past its bound, and keeps none of it in memory', () => {
    const file = path.join(folder(), 'output.log');
    const log = new OutputLog(file, () => undefined);
    // A long session's screens, box drawing and all (two bytes a character in V8).
    const chunk = `╭${'─'.repeat(1000)}╮\r\n`;
    for (let i = 0; i < 300; i++) log.append(chunk);
    expect(readFileSync(file, 'utf8')).toBe(chunk.repeat(300));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // A host's memory does not hold what the file does: each chunk once copied into an in-memory ring of
    // 256 Ki characters made a new string of 512 KiB, garbage that only a full collection frees.
    const fields: unknown[] = Object.values(log);
    const kept = fields.filter((v) => typeof v === 'string' && v.length > 1024);
    expect(kept).toEqual([]);
    for (let i = 0; i * chunk.length * 3 < LOG_MAX_BYTES + 2 * chunk.length * 3; i++) log.append(chunk);
    expect(statSync(`${file}.1`).size).toBeGreaterThan(LOG_MAX_BYTES);
    expect(statSync(file).size).toBeLessThan(LOG_MAX_BYTES);
  });
});
