// A verb the daemon runs on a host for `mado --host NAME VERB`: one whose end never comes there (its
// exit sent on another channel, pings still answered) is given up at its deadline, said to the
// client; `logs -f`, which lasts as long as its job, has none and ends when its client leaves.
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { remoteVerb } from '../../../src/daemon/remote-verb.js';
import type { Reply } from '../../../src/jobs/protocol/replies.js';
import type { Peer } from '../../../src/jobs/protocol/serve.js';
import { LinkPool } from '../../../src/jobs/remote/pool.js';
import { holds } from '../../helpers/wait.js';

const BRIDGE = path.join(__dirname, '../../fixtures/bin/hostile-bridge');

/** A client of the daemon: its last reply, and a way to leave. */
class Client implements Peer {
  ended?: Reply;
  closed = false;
  readonly pending = 0;
  private readonly closers: (() => void)[] = [];
  send(): boolean {
    return true;
  }
  end(reply?: Reply): void {
    this.ended = reply;
    this.closed = true;
  }
  onDrain(): void {}
  onClose(fn: () => void): void {
    this.closers.push(fn);
  }
  leave(): void {
    this.closed = true;
    for (const fn of this.closers) fn();
  }
}

let pool: LinkPool | undefined;
afterEach(() => pool?.close());

describe('the daemon’s verb on a host', () => {
  const request = (argv: string[]) => ({
    op: 'remote-verb' as const,
    host: 'box',
    config: { command: [process.execPath, BRIDGE, 'wrong-channel'], mado: 'mado' },
    argv,
  });

  it('one whose end never comes is given up at its deadline, and the client told why', async () => {
    pool = new LinkPool(process.env);
    const peer = new Client();
    const t0 = Date.now();
    await remoteVerb(request(['jobs']), peer, pool, 800);
    expect(peer.ended).toEqual({ type: 'error', error: '`mado jobs` on box did not end in 0.8 s' });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('`logs -f` has none: it lasts until its client leaves', async () => {
    pool = new LinkPool(process.env);
    const peer = new Client();
    let over = false;
    const running = remoteVerb(request(['logs', '-f', 'parser']), peer, pool, 300).then(() => (over = true));
    expect(await holds(() => !over, 1500)).toBe(true);
    peer.leave();
    await running;
    expect(peer.ended?.type).toBe('error');
  });
});
