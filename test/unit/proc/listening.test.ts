import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listeningPorts } from '../../../src/proc/listening.js';

const HEAD = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';

describe("a process's listening ports", () => {
  it('are its sockets listening at the loopback address (tcp and tcp6), from a /proc', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'madohub-proc-'));
    mkdirSync(path.join(root, '42', 'fd'), { recursive: true });
    mkdirSync(path.join(root, 'net'));
    for (const [fd, target] of [
      ['3', 'socket:[111]'],
      ['4', 'socket:[222]'],
      ['5', 'socket:[333]'],
      ['6', 'socket:[444]'],
      ['7', '/dev/null'],
    ])
      symlinkSync(target!, path.join(root, '42', 'fd', fd!));
    writeFileSync(
      path.join(root, 'net', 'tcp'),
      [
        HEAD,
        '   0: 0100007F:1000 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1 0 100 0 0 10 0',
        // Listening on every address: not the loopback's alone, not taken.
        '   1: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 222 1 0 100 0 0 10 0',
        // A connection (01), not a listening socket.
        '   2: 0100007F:A414 0100007F:1000 01 00000000:00000000 00:00000000 00000000     0        0 333 1 0 20 4 1 60 -1',
        '   3: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 999 1 0 100 0 0 10 0',
      ].join('\n'),
    );
    writeFileSync(
      path.join(root, 'net', 'tcp6'),
      [
        HEAD,
        '   0: 00000000000000000000000001000000:0FA0 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 444 1 0 100 0 0 10 0',
      ].join('\n'),
    );
    expect(listeningPorts(42, root)).toEqual([4000, 4096]);
    expect(listeningPorts(43, root)).toEqual([]);
  });
  it("this process's own server, from the real /proc", async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      expect(listeningPorts(process.pid)).toContain(port);
    } finally {
      server.close();
    }
  });
});
