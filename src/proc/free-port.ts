// A port for an agent's server that the host chooses before the agent listens on it. A port the system
// picks (port 0) is one of those it also gives to outgoing connections: between its choice and the
// agent's listen, any connection on the machine may take it, and the agent cannot start. So the port is
// taken below that range, where no connection is given one, and checked free.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';
/** The lowest port chosen (below it are the well-known and the registered ports most servers use). */
const LOWEST = 10_000;
/** Ports tried below the range before the system is left to choose. */
const TRIES = 20;

/** The ports the system gives outgoing connections, [first, last]; undefined where it does not say. */
export function outgoingPorts(
  read: () => string = () => readFileSync(RANGE_FILE, 'utf8'),
): [number, number] | undefined {
  try {
    const m = /^\s*(\d{1,5})\s+(\d{1,5})\s*$/.exec(read());
    if (!m) return undefined;
    const first = Number(m[1]);
    const last = Number(m[2]);
    return first >= 1 && first <= last && last <= 65535 ? [first, last] : undefined;
  } catch {
    return undefined;
  }
}

/** Listens on `port` at 127.0.0.1 and lets go: the port it had (the system's choice for 0), or undefined when taken. */
function tryPort(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : undefined));
    });
  });
}

/**
 * A free port at 127.0.0.1 that no outgoing connection is given meanwhile: one at random below the
 * range of `outgoing` (at or above 10000); the system's choice where there is no room below it, or every
 * port tried was taken.
 */
export async function freePort(
  outgoing: [number, number] | undefined = outgoingPorts(),
  random: () => number = Math.random,
): Promise<number> {
  const below = outgoing === undefined ? 0 : outgoing[0] - LOWEST;
  for (let i = 0; below > 0 && i < TRIES; i++) {
    const port = await tryPort(LOWEST + Math.floor(random() * below));
    if (port !== undefined) return port;
  }
  const port = await tryPort(0);
  if (port === undefined) throw new Error('no free port at 127.0.0.1');
  return port;
}
