// The host's socket: a socket its job's last host left is removed (nothing else is), then it listens
// and makes the socket private (0600). A failure is said in host.log; the job runs on without clients.
import { chmodSync, lstatSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';

export async function listenPrivately(server: Server, socketPath: string, say: (m: string) => void): Promise<void> {
  try {
    if (lstatSync(socketPath).isSocket()) rmSync(socketPath); // a socket of this job's last host
  } catch {
    // None there.
  }
  const listening = await new Promise<string | null>((resolve) => {
    server.once('error', (err) => resolve(err.message));
    server.listen(socketPath, () => resolve(null));
  });
  if (listening) say(`cannot listen on ${socketPath}: ${listening}`);
  else {
    try {
      chmodSync(socketPath, 0o600);
    } catch (err) {
      say(`cannot make ${socketPath} private: ${String(err)}`);
    }
  }
}
