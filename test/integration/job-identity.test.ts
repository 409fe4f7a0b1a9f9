// Which agent a job runs: its process tree names it, and its screen is read with that agent's rules,
// as a terminal's is, whatever marks of another agent the screen shows (issue 32: Continue CLI's
// screens carry Claude Code's `● ` and `⎿`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Conn } from '../../src/jobs/protocol/client.js';
import { PROTO } from '../../src/jobs/protocol/codec.js';
import { FIX, shortOf, until, useJobsHarness } from './jobs-harness.js';

const h = useJobsHarness({ cn: { command: ['node', path.join(FIX, 'bin/cn')], prompt: 'type' } });

/** Presses Enter in the job's terminal (as someone attached would). */
async function enter(short: string): Promise<void> {
  const info = JSON.parse(readFileSync(path.join(h.base, 'jobs', short, 'host.json'), 'utf8')) as { socket: string };
  const { conn } = await Conn.open(info.socket);
  conn.send({ proto: PROTO, op: 'input', data: '\r' });
  conn.close();
}

describe('a job’s agent', () => {
  it('is its process’s: a frame showing only marks Claude Code shares never makes a Continue CLI job Claude’s', async () => {
    const short = shortOf((await h.mado(['--bg', '--agent', 'cn'])).stdout);
    const job = async (): Promise<Record<string, unknown> | undefined> =>
      (await h.jobs()).find((j) => j.short === short);
    await until(job, (j) => j?.agent === 'cn' && j.tempo === 'idle');
    // Its approval box, half drawn: the rows above its choices (`● `, `⎿ Will run:`, the spinner row).
    await enter(short);
    await until(
      async () => (await h.mado(['screen', short])).stdout,
      (t) => t.includes('Would you like to continue?') && !t.includes('Continue (tab)'),
    );
    const half = await until(job, (j) => j?.tempo !== 'idle');
    expect(half).toMatchObject({ agent: 'cn', tempo: 'blocked', needs: 'approval' });
    // Its question next, its own rows below: still Continue CLI's.
    await enter(short);
    const asked = await until(job, (j) => j?.needs === 'question');
    expect(asked).toMatchObject({ agent: 'cn', tempo: 'blocked' });
  });
});
