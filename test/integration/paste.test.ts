// No text ever types a key, on every path that writes text into an agent: a reply to a terminal of
// Neovim (the picker's `r`, routes to terminals), and a reply to a job through its host (`mado send`,
// the picker's `r` on a job, routes to jobs). The fixture replier records every byte it reads: each
// reply must arrive as one paste start, text without ESC or another control, one paste end, Enter.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';
import { openTerminal, startNeovim, testNeovims } from './neovim.js';
import type { Session } from './neovim.js';

const START = '\x1b[200~';
const END = '\x1b[201~';

/** Hostile replies: an end mark and keys after it, nested and partial escapes, C0 and C1, NUL. */
function hostileTexts(count: number): string[] {
  let seed = 42;
  const r = (): number => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const pieces = [
    '\x1b[201~',
    '\x03',
    '/exit',
    '\r',
    '\n',
    'y',
    '\x1b',
    '\x1b[20',
    '\x9b201~',
    '\x00',
    '\x7f',
    '\x1b]0;x\x07',
    '\x04',
    '\x1a',
    '\t',
    'words ',
    '日本 ',
  ];
  const out = [`please review\x1b[201~\x03/exit\ry\r`];
  for (let i = 1; i < count; i++) {
    let t = `r${i} `;
    for (let k = 0; k < 12; k++)
      t += r() < 0.6 ? pieces[Math.floor(r() * pieces.length)] : String.fromCharCode(Math.floor(r() * 0xa0));
    out.push(t);
  }
  return out;
}

/** The replies as the replier read them: each `START body END` followed by Enter, and nothing else. */
function pastesIn(raw: string): string[] {
  const out: string[] = [];
  let rest = raw;
  while (rest.length > 0) {
    expect(rest.startsWith(START)).toBe(true);
    const end = rest.indexOf(END);
    expect(end).toBeGreaterThan(0);
    const body = rest.slice(START.length, end);
    expect(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/.test(body)).toBe(false);
    out.push(body);
    rest = rest.slice(end + END.length);
    expect(rest.startsWith('\r')).toBe(true);
    rest = rest.slice(1);
  }
  return out;
}

describe.each(testNeovims())('Neovim $label: every reply is one paste', ({ path: exe }) => {
  const h = useJobsHarness({ replier: { command: ['node', path.join(FIX, 'bin/replier')], prompt: 'type' } });
  let s: Session | undefined;
  afterEach(async () => {
    await s?.close();
    s = undefined;
  });

  it('to a terminal of this Neovim: 20 hostile replies in a row, each one paste (and a 100 KB one)', async () => {
    const raw = path.join(h.base, 'raw-terminal');
    writeFileSync(raw, '');
    s = await startNeovim(exe, { MADOHUB_FIXTURE_RAW: raw });
    await s.lua(`require('madohub').setup({})`);
    const buf = await openTerminal(s, ['node', path.join(FIX, 'bin/replier')]);
    expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).state == 'idle'`, 10000)).toBe(true);
    const texts = [
      ...hostileTexts(20),
      `${'x'.repeat(50 * 1024)}\x1b[201~${'\x03'.repeat(10)}${'y'.repeat(50 * 1024)}`,
    ];
    for (const [i, text] of texts.entries()) {
      const err = await s.lua<string>(
        `local done, err = false, nil
         require('madohub.node').call('terminal_reply', { buf = ..., text = select(2, ...), typing = false }, function(_, e) done, err = true, e end)
         vim.wait(5000, function() return done end, 10)
         return err or ''`,
        [buf, text],
      );
      expect(err).toBe('');
      // Sent at once (idle) and followed by its Enter.
      const got = await until(
        async () => readFileSync(raw, 'latin1'),
        (v) => (v.match(/\x1b\[201~\r/g) ?? []).length === i + 1,
        8000,
      );
      expect((got.match(/\x1b\[201~\r/g) ?? []).length).toBe(i + 1);
      expect(await s.waitFor(`(require('madohub').state(${buf}) or {}).state == 'idle'`, 8000)).toBe(true);
    }
    const bodies = pastesIn(readFileSync(raw, 'utf8'));
    expect(bodies.length).toBe(texts.length);
    expect(bodies[0]).toBe('please review␛[201~␃/exit\ny\n');
    // The replier's program is still up: nothing ended it.
    expect(await s.lua<number>(`return vim.fn.jobwait({ vim.bo[${buf}].channel }, 0)[1]`)).toBe(-1);
  }, 90000);

  it('to a background job through its host: mado send with hostile text, 20 times', async () => {
    const raw = path.join(h.base, 'raw-job');
    writeFileSync(raw, '');
    const env = { MADOHUB_FIXTURE_RAW: raw, MADOHUB_JOB_ENV: 'MADOHUB_FIXTURE_RAW' };
    const short = shortOf((await h.mado(['--bg', '--agent', 'replier', 'first words'], undefined, env)).stdout);
    // The typed prompt is a paste too.
    await until(
      async () => readFileSync(raw, 'latin1'),
      (v) => v.includes('\r'),
      10000,
    );
    const texts = hostileTexts(20);
    for (const [i, text] of texts.entries()) {
      const r = await h.mado(['send', short], text, env);
      expect(r.stderr).toMatch(/^(mado: NUL bytes were dropped from the reply\n)?$/);
      expect(r.code).toBe(0);
      const got = await until(
        async () => readFileSync(raw, 'latin1'),
        (v) => (v.match(/\x1b\[201~\r/g) ?? []).length === i + 2,
        8000,
      );
      expect((got.match(/\x1b\[201~\r/g) ?? []).length).toBe(i + 2);
    }
    const bodies = pastesIn(readFileSync(raw, 'utf8'));
    expect(bodies[0]).toBe('first words');
    expect(bodies[1]).toBe('please review␛[201~␃/exit\ny\n');
    expect(bodies.length).toBe(texts.length + 1);
  }, 120000);
});
