// A real OpenSSH server for the tests of remote hosts: on 127.0.0.1 on a free port, with a
// throwaway host key and user key, logging in as this user; ended by pid when the test is done.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { until } from '../helpers/wait.js';
import { freePort } from '../../src/proc/free-port.js';

export const SSHD = ['/usr/sbin/sshd', '/usr/local/sbin/sshd'].find((p) => existsSync(p));

export interface Sshd {
  port: number;
  dir: string;
  /** `ssh` with this server's options and the user key: add the remote command. */
  ssh(extra?: string[]): string[];
  /** An ssh command whose key the server does not take. */
  sshWrongKey(): string[];
  /** Kills the server and every session it runs (the links through it drop). */
  stop(): void;
  readonly process: ChildProcess;
}

const keygen = (file: string): void =>
  void execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file], { stdio: 'ignore' });

export async function startSshd(): Promise<Sshd> {
  if (!SSHD) throw new Error('no sshd: install openssh-server (.ci/run does)');
  const dir = mkdtempSync(path.join(tmpdir(), 'madohub-sshd-'));
  keygen(path.join(dir, 'host_key'));
  keygen(path.join(dir, 'user_key'));
  keygen(path.join(dir, 'other_key'));
  writeFileSync(path.join(dir, 'authorized_keys'), readFileSync(path.join(dir, 'user_key.pub')));
  // The privilege separation folder sshd needs when it runs as root.
  if (userInfo().uid === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const port = await freePort();
  const config = path.join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${dir}/host_key`,
      `PidFile ${dir}/sshd.pid`,
      `AuthorizedKeysFile ${dir}/authorized_keys`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PubkeyAuthentication yes',
      'PermitRootLogin prohibit-password',
      `AllowUsers ${userInfo().username}`,
      'PrintMotd no',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const proc = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr!.on('data', (d: Buffer) => (log += d.toString()));
  // Listening: a connection is taken.
  const listening = (): Promise<boolean> =>
    new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
  const up = await until(async () => (await listening()) || proc.exitCode !== null, 10000, 50);
  if (!up || proc.exitCode !== null) throw new Error(`sshd did not start: ${log}`);
  const base = (key: string): string[] => [
    'ssh',
    '-T',
    '-F',
    'none',
    '-i',
    path.join(dir, key),
    '-p',
    String(port),
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    `UserKnownHostsFile=${dir}/known_hosts`,
    '-o',
    'LogLevel=ERROR',
    '-o',
    'ConnectTimeout=5',
  ];
  return {
    port,
    dir,
    ssh: (extra = []) => [...base('user_key'), '127.0.0.1', ...extra],
    sshWrongKey: () => [...base('other_key'), '127.0.0.1'],
    stop: () => {
      for (const pid of [...descendants(proc.pid!), proc.pid!]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
    },
    process: proc,
  };
}

/** The processes under `pid` (its sessions and what they run), read from /proc. */
function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [child, pp] of parent) {
      if (pp !== p) continue;
      out.push(child);
      walk(child);
    }
  };
  walk(pid);
  return out;
}
