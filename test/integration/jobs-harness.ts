// What the job integration tests share: a folder of their own per test (jobs, runtime, templates),
// the built `mado` run in it, and the cleanup of what a test left running.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { ROOT } from './neovim.js';
import { readHostInfo, signalAgentGroup } from '../../src/jobs/hostinfo.js';
import { sameProcess } from '../../src/proc/stamp.js';
import { untilValue } from '../helpers/wait.js';

export const MADO = path.join(ROOT, 'bin/mado');
export const FIX = path.join(ROOT, 'test/fixtures');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export interface JobsHarness {
  /** The test's folder (jobs/, run/, templates.json live in it). */
  readonly base: string;
  readonly env: NodeJS.ProcessEnv;
  mado(args: string[], input?: string, extraEnv?: NodeJS.ProcessEnv, cwd?: string): Promise<Run>;
  jobs(): Promise<Record<string, unknown>[]>;
  gitRepo(): { repo: string; git: (...args: string[]) => string };
  killDaemon(): void;
  /** What a test Neovim needs to see this harness's jobs: its folders, templates, and agents' record folders. */
  neovimEnv(): Record<string, string>;
}

/** The fixture templates every job test may use (named like the agents where the agent matters). */
function templates(extra: Record<string, object>): Record<string, object> {
  return {
    asker: { command: ['node', path.join(FIX, 'bin/asker')], prompt: 'type' },
    // Idle 1.5 s, working 0.3 s, over and over (a screen every 300 ms): its status stays running. (An Idle
    // drawn straight after Working is told once it has stood 1 s: output that has just appeared is no end.)
    looper: {
      command: [
        'node',
        path.join(FIX, 'agent.cjs'),
        ...Array<string>(5).fill('claude-idle'),
        'claude-working',
        '--every',
        '300',
        '--loop',
      ],
      prompt: 'type',
    },
    // Named like the agents, with their resume arguments: the fixtures ignore the arguments.
    claude: {
      command: [path.join(FIX, 'bin/claude')],
      prompt: 'arg',
      resume: ['--resume', '{id}'],
      sessionId: ['--session-id', '{session}'],
    },
    codex: { command: [path.join(FIX, 'bin/codex')], prompt: 'arg', resume: ['resume', '{id}'] },
    // Turn after turn: works, ends its turn (a completion line), works again, with the agent up.
    turns: {
      command: [
        'node',
        path.join(FIX, 'agent.cjs'),
        'claude-real-working',
        'claude-real-stopped',
        '--every',
        '900',
        '--loop',
      ],
      prompt: 'type',
    },
    isolated: {
      command: ['node', path.join(FIX, 'agent.cjs'), 'claude-idle', '--loop'],
      prompt: 'type',
      isolation: 'worktree',
      resume: ['--resume', '{id}'],
    },
    ...extra,
  };
}

/** untilValue for reads that run `mado` (a process each): one every 100 ms. */
export const until = <T>(read: () => Promise<T>, ok: (value: T) => boolean, ms = 10000): Promise<T> =>
  untilValue(read, ok, ms, 100);

export const shortOf = (out: string): string => /backgrounded · ([0-9a-f]{8})/.exec(out)![1]!;

/**
 * Registers the per-test folder and cleanup (`scope` 'file': one folder for the tests of the file,
 * which then go on from one another); `extra` templates join the fixture ones.
 */
export function useJobsHarness(extra: Record<string, object> = {}, scope: 'test' | 'file' = 'test'): JobsHarness {
  const h = { base: '', env: {} as NodeJS.ProcessEnv };
  (scope === 'file' ? beforeAll : beforeEach)(() => {
    h.base = mkdtempSync(path.join(tmpdir(), 'madohub-jobs-it-'));
    const file = path.join(h.base, 'templates.json');
    writeFileSync(file, JSON.stringify(templates(extra)));
    h.env = {
      ...process.env,
      MADOHUB_TEMPLATES: file,
      MADOHUB_JOBS_DIR: path.join(h.base, 'jobs'),
      MADOHUB_RUNTIME_DIR: path.join(h.base, 'run'),
      // The review's shadow repositories (issue 29) and the rest of the state: the test's own.
      XDG_STATE_HOME: path.join(h.base, 'state'),
      MADOHUB_DISABLE_AGENT_VIEW: '',
      // The fixture agents named like Claude Code and Codex write their records here, not in the
      // developer's own ~/.claude and ~/.codex.
      CLAUDE_CONFIG_DIR: path.join(h.base, 'claude'),
      CODEX_HOME: path.join(h.base, 'codex'),
    };
  });
  (scope === 'file' ? afterAll : afterEach)(async () => {
    // Kill what the test left running: hosts, their agents, and this test's daemon.
    await killJobsOf(path.join(h.base, 'jobs'));
    killDaemonOf(h.base);
    // Then its throwaway folder goes (every test of the suite made one: thousands on a CI machine).
    rmSync(h.base, { recursive: true, force: true, maxRetries: 3 });
  });
  const mado = (args: string[], input?: string, extraEnv: NodeJS.ProcessEnv = {}, cwd?: string): Promise<Run> =>
    new Promise((resolve) => {
      const child = execFile(
        process.execPath,
        [MADO, ...args],
        { env: { ...h.env, ...extraEnv }, cwd, timeout: 30000, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
        },
      );
      child.stdin!.on('error', () => undefined);
      child.stdin!.end(input);
    });
  return {
    get base() {
      return h.base;
    },
    get env() {
      return h.env;
    },
    mado,
    async jobs() {
      const r = await mado(['agents', '--json']);
      return JSON.parse(r.stdout) as Record<string, unknown>[];
    },
    gitRepo() {
      const repo = path.join(h.base, 'repo');
      mkdirSync(repo);
      const git = (...args: string[]): string => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
      git('init', '-q');
      git('-c', 'user.email=t@example.invalid', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'first');
      return { repo, git };
    },
    killDaemon: () => killDaemonOf(h.base),
    neovimEnv() {
      const out: Record<string, string> = { XDG_STATE_HOME: path.join(h.base, 'state') };
      for (const k of [
        'MADOHUB_TEMPLATES',
        'MADOHUB_JOBS_DIR',
        'MADOHUB_RUNTIME_DIR',
        'CLAUDE_CONFIG_DIR',
        'CODEX_HOME',
      ])
        out[k] = h.env[k] as string;
      return out;
    },
  };
}

/**
 * Kills the hosts of the jobs in `jobs` and their agents' process groups (what a test left running),
 * then every process still running in the jobs folder's name (a git a host had started to checkpoint a
 * turn, a bridge, a daemon), and waits until they are gone: a git that outlived its host wrote into
 * the state folder while the test's folders were removed. Hosts only while they are still the
 * processes host.json names (their start stamps): a file a killed host left names pids that may be
 * others' by now (pids wrap at 32768 here), a vitest worker's among them.
 */
export async function killJobsOf(jobs: string): Promise<void> {
  if (!existsSync(jobs)) return;
  for (const short of readdirSync(jobs)) {
    const info = readHostInfo(path.join(jobs, short));
    if (!info) continue;
    signalAgentGroup(info, 'SIGKILL');
    try {
      if (sameProcess(info.pid, info.pidStart)) process.kill(info.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  const left = (): number[] => processesOf(jobs);
  for (const pid of left()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
  const gone = await untilValue(left, (pids) => pids.length === 0, 10000);
  if (gone.length > 0) throw new Error(`processes of ${jobs} outlived SIGKILL: ${gone.join(' ')}`);
}

/** Whether process `pid` runs (a zombie has ended: it writes nothing more). */
function running(pid: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * The running processes, other than this one, whose environment names the jobs folder `jobs` (and
 * whose command line holds `inCmdline`, when given).
 */
function processesOf(jobs: string, inCmdline?: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .filter((p) => {
      try {
        return (
          (inCmdline === undefined || readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(inCmdline)) &&
          `\0${readFileSync(`/proc/${p}/environ`, 'utf8')}\0`.includes(`\0MADOHUB_JOBS_DIR=${jobs}\0`) &&
          running(p)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** True when process `pid` is a mado daemon of the test folder `base` (its environment names base's runtime folder). */
function daemonOf(pid: number, base: string): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    return cmdline.includes('__daemon') && environ.includes(`MADOHUB_RUNTIME_DIR=${path.join(base, 'run')}`);
  } catch {
    return false;
  }
}

/**
 * Kills the test's daemon (the last one its log says listens), not those of other test files, nor a
 * process that took its pid once it had left.
 */
export function killDaemonOf(base: string): void {
  let log: string;
  try {
    log = readFileSync(path.join(base, 'run', 'daemon.log'), 'utf8');
  } catch {
    return;
  }
  const m = [...log.matchAll(/listening on .* pid (\d+)\)/g)].pop();
  if (!m || !daemonOf(Number(m[1]), base)) return;
  try {
    process.kill(Number(m[1]), 'SIGKILL');
  } catch {
    // Gone already.
  }
}

/** The `mado bridge` processes that serve the jobs folder `jobs` (found in /proc by their environment). */
export function bridgesOf(jobs: string): number[] {
  return processesOf(jobs, 'mado.js\0bridge');
}
