import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort, outgoingPorts } from '../../../src/proc/free-port.js';

const listening = (port: number): Promise<Server> =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => resolve(s));
  });

describe('a port for an agent’s server', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const s of servers.splice(0)) s.close();
  });

  it('reads the range the system gives outgoing connections; none where the file is odd or missing', () => {
    expect(outgoingPorts(() => '32768\t60999\n')).toEqual([32768, 60999]);
    for (const odd of ['', '60999 32768', '0 10', '1 99999', 'a b', '1 2 3'])
      expect(
        outgoingPorts(() => odd),
        odd,
      ).toBeUndefined();
    expect(
      outgoingPorts(() => {
        throw new Error('ENOENT');
      }),
    ).toBeUndefined();
  });

  it('is below that range (no connection is given it before the agent listens), free, and at random', async () => {
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort([32768, 60999])));
    for (const p of ports) {
      expect(p).toBeGreaterThanOrEqual(10_000);
      expect(p).toBeLessThan(32768);
      servers.push(await listening(p));
    }
    expect(new Set(ports).size).toBeGreaterThan(1);
  });

  it('passes over a port taken; left to the system when no room is below the range or all tried are taken', async () => {
    const taken = await freePort([32768, 60999]);
    servers.push(await listening(taken));
    // The first try falls on the taken port, the next on the one after it.
    const pick = (port: number): number => (port - 10_000 + 0.5) / 22768;
    const picks = [pick(taken), pick(taken + 1)];
    const next = await freePort([32768, 60999], () => picks.shift() ?? 0.5);
    expect(next).not.toBe(taken);
    expect(next).toBeLessThan(32768);
    expect(await freePort([1024, 60999])).toBeGreaterThan(0);
    expect(await freePort([32768, 60999], () => pick(taken))).toBeGreaterThanOrEqual(32768);
    expect(await freePort(undefined)).toBeGreaterThan(0);
  });
});
