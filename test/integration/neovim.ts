// Starts real headless Neovims for the integration tests, with the plugin on 'runtimepath'.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attach } from 'neovim';
import type { NeovimClient } from 'neovim';

/** The project's root: the first folder upwards that holds scripts/get-nvim.sh (works when bundled too). */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'scripts/get-nvim.sh'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no project root above ${from}`);
  }
}

export const ROOT = findRoot(__dirname);
export const AGENT = path.join(ROOT, 'test/fixtures/agent.cjs');
/** Fixtures named like the real agents, which write the agents' records. */
export const FAKE_CLAUDE = path.join(ROOT, 'test/fixtures/bin/claude');
/**
 * agent.cjs's screens of a turn whose screen reads Idle for 300 ms between two of its working screens
 * (output that has just appeared), then its end (its completion line), one every 300 ms.
 */
export const FLASHING_TURN = ['claude-working', 'claude-idle', 'claude-working', 'claude-stopped', '--every', '300'];
export const FAKE_CODEX = path.join(ROOT, 'test/fixtures/bin/codex');
export const FAKE_AMP = path.join(ROOT, 'test/fixtures/bin/amp');
export const FAKE_GEMINI = path.join(ROOT, 'test/fixtures/bin/gemini');
export const FAKE_OPENCODE = path.join(ROOT, 'test/fixtures/bin/opencode');

export interface TestNeovim {
  /** `0.10` or `0.12`. */
  label: string;
  path: string;
}

/** `nvim --version` as [major, minor], or null when it does not run. */
function versionOf(exe: string): [number, number] | null {
  try {
    const out = execFileSync(exe, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const m = /NVIM v(\d+)\.(\d+)/.exec(out);
    return m ? [Number(m[1]), Number(m[2])] : null;
  } catch {
    return null;
  }
}

const TARGETS = [
  { label: '0.10', minor: 10, suite: 'trixie' },
  { label: '0.12', minor: 12, suite: 'sid' },
];

/**
 * The Neovims the tests run against: 0.10 and 0.12. The one on PATH serves where it is of that
 * version; otherwise scripts/get-nvim.sh yields one (from Debian trixie or sid) into .cache/.
 */
export function testNeovims(): TestNeovim[] {
  const onPath = versionOf('nvim');
  return TARGETS.map((t) => {
    if (onPath && onPath[0] === 0 && onPath[1] === t.minor) return { label: t.label, path: 'nvim' };
    const launcher = execFileSync('bash', [path.join(ROOT, 'scripts/get-nvim.sh'), t.suite], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    return { label: t.label, path: launcher };
  });
}

export interface Session {
  nvim: NeovimClient;
  proc: ChildProcess;
  /** Runs Lua in Neovim and returns its result. */
  lua<T>(code: string, args?: unknown[]): Promise<T>;
  /** Waits in Neovim (so that its event loop runs) until the Lua expression is true. */
  waitFor(expr: string, timeoutMs?: number): Promise<boolean>;
  close(): Promise<void>;
}

/** `root`: the plugin's folder put on 'runtimepath' (a built copy of the project; this one by default). */
export async function startNeovim(exe: string, extraEnv: Record<string, string> = {}, root = ROOT): Promise<Session> {
  const home = mkdtempSync(path.join(tmpdir(), 'madohub-test-'));
  const proc = spawn(
    exe,
    [
      '--embed',
      '--headless',
      '--clean',
      '-n',
      '-i',
      'NONE',
      '--cmd',
      `set rtp^=${root}`,
      '--cmd',
      'set lines=60 columns=200',
    ],
    {
      env: {
        ...process.env,
        XDG_STATE_HOME: path.join(home, 'state'),
        XDG_DATA_HOME: path.join(home, 'data'),
        XDG_CONFIG_HOME: path.join(home, 'config'),
        MADOHUB_LOG: path.join(home, 'madohub.log'),
        ...extraEnv,
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const nvim = attach({ proc });
  const lua = async <T>(code: string, args: unknown[] = []): Promise<T> => (await nvim.lua(code, args as never[])) as T;
  const session: Session = {
    nvim,
    proc,
    lua,
    waitFor: (expr, timeoutMs = 5000) =>
      lua<boolean>(`return vim.wait(${timeoutMs}, function() return ${expr} end, 10)`),
    close: async () => {
      const exited = new Promise<void>((resolve) => {
        if (proc.exitCode !== null) resolve();
        else proc.once('exit', () => resolve());
      });
      // A notification: Neovim exits without answering a request.
      nvim.notify('nvim_command', ['qa!']);
      const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
      // Its throwaway folders go with it (a review's shadow repository of the project is megabytes).
      rmSync(home, { recursive: true, force: true, maxRetries: 3 });
    },
  };
  // Wait for the first request to be answered: Neovim is up.
  await lua('return 1');
  return session;
}

/** A Lua expression: whether Neovim's messages hold `text` (what a command says when its answer comes). */
export const said = (text: string): string =>
  `vim.fn.execute('messages'):find(${JSON.stringify(text)}, 1, true) ~= nil`;

/** Opens a terminal in a new split running the fixture agent; returns its buffer number. */
export function openAgent(s: Session, argv: string[], vertical = false): Promise<number> {
  return openTerminal(s, ['node', AGENT, ...argv], vertical);
}

/** Opens a terminal in a new split running `cmd`; returns its buffer number. */
export async function openTerminal(s: Session, cmd: string[], vertical = false): Promise<number> {
  return s.lua<number>(
    `vim.cmd(${vertical ? "'vnew'" : "'new'"})
     if vim.fn.has('nvim-0.11') == 1 then
       vim.fn.jobstart(..., { term = true })
     else
       vim.fn.termopen(...)
     end
     return vim.api.nvim_get_current_buf()`,
    [cmd],
  );
}
