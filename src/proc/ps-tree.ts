// The process tree without /proc (macOS, the BSDs): the process list from `ps-list` (pid, parent,
// name, command line, executable, start time), each process's folder and open files from `lsof`.
// Both run in the background, bounded in time; what `walk` answers is the last list read (at most
// MAX_AGE_MS old when it is asked again), and `stale` says when a newer one is being read.
import { execFile } from 'node:child_process';
import psList from 'ps-list';
import type { ProcessDescriptor } from 'ps-list';
import type { ProcessInfo } from '../shared/types.js';
import type { ProcessSource } from './source.js';

/** A list older than this is read again when asked. */
const MAX_AGE_MS = 500;
/** What is known of a process's folder or files is asked again after this. */
const LSOF_AGE_MS = 2000;
const LSOF_MS = 3000;
/** The longest command line kept (the identity of an agent is at its start). */
const MAX_CMD = 4096;

interface Known {
  info: ProcessInfo;
  startMs?: number;
}

/** Runs `lsof` bounded in time; its output, '' when it fails. */
function lsof(args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile('lsof', args, { timeout: LSOF_MS, maxBuffer: 4 * 1024 * 1024 }, (_err, stdout) =>
      resolve(typeof stdout === 'string' ? stdout : ''),
    );
  });
}

/** The `n` fields of `lsof -F n` output: the names (paths). */
export function lsofNames(out: string): string[] {
  return out
    .split('\n')
    .filter((l) => l.startsWith('n'))
    .map((l) => l.slice(1));
}

/** A ps-list descriptor as the detectors' ProcessInfo (the command line split at spaces: ps gives it joined). */
export function infoOf(p: ProcessDescriptor): ProcessInfo {
  const cmd = (p.cmd ?? p.name).slice(0, MAX_CMD);
  return {
    pid: p.pid,
    ppid: p.ppid,
    comm: p.name.slice(0, 64),
    argv: cmd.split(/\s+/).filter(Boolean),
    exe: p.path ?? '',
  };
}

export class PsTree implements ProcessSource {
  readonly kind = 'ps';
  private known = new Map<number, Known>();
  private children = new Map<number, number[]>();
  private readAt = 0;
  private reading?: Promise<void>;
  private readonly cwds = new Map<number, { at: number; value?: string }>();
  private readonly files = new Map<number, { at: number; value: string[] }>();

  constructor(
    private readonly list: () => Promise<ProcessDescriptor[]> = () => psList({ all: false }),
    private readonly run: (args: string[]) => Promise<string> = lsof,
    private readonly now: () => number = Date.now,
  ) {}

  get stale(): boolean {
    return this.reading !== undefined || this.now() - this.readAt > MAX_AGE_MS;
  }

  refresh(): Promise<void> {
    this.reading ??= this.list()
      .then((procs) => {
        const known = new Map<number, Known>();
        const children = new Map<number, number[]>();
        for (const p of procs) {
          known.set(p.pid, { info: infoOf(p), startMs: p.startTime?.getTime() });
          const siblings = children.get(p.ppid);
          if (siblings) siblings.push(p.pid);
          else children.set(p.ppid, [p.pid]);
        }
        this.known = known;
        this.children = children;
        this.readAt = this.now();
      })
      .catch(() => undefined)
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  /** Reads the list again in the background when it is old. */
  private fresh(): void {
    if (this.now() - this.readAt > MAX_AGE_MS) void this.refresh();
  }

  walk(root: number): ProcessInfo[] {
    this.fresh();
    const out: ProcessInfo[] = [];
    const seen = new Set<number>();
    const queue = [root];
    while (queue.length > 0) {
      const pid = queue.shift()!;
      if (seen.has(pid)) continue;
      seen.add(pid);
      const k = this.known.get(pid);
      if (!k) continue;
      out.push(k.info);
      queue.push(...(this.children.get(pid) ?? []));
    }
    return out;
  }

  prune(): void {
    for (const pid of this.cwds.keys()) if (!this.known.has(pid)) this.cwds.delete(pid);
    for (const pid of this.files.keys()) if (!this.known.has(pid)) this.files.delete(pid);
  }

  startMs(pid: number): number | undefined {
    this.fresh();
    return this.known.get(pid)?.startMs;
  }

  cwd(pid: number): string | undefined {
    const c = this.cwds.get(pid);
    if (!c || this.now() - c.at > LSOF_AGE_MS) {
      this.cwds.set(pid, { at: this.now(), value: c?.value });
      void this.run(['-a', '-p', String(pid), '-d', 'cwd', '-Fn']).then((out) =>
        this.cwds.set(pid, { at: this.now(), value: lsofNames(out)[0] }),
      );
    }
    return c?.value;
  }

  openFiles(pid: number): string[] {
    const f = this.files.get(pid);
    if (!f || this.now() - f.at > LSOF_AGE_MS) {
      this.files.set(pid, { at: this.now(), value: f?.value ?? [] });
      void this.run(['-p', String(pid), '-Fn']).then((out) =>
        this.files.set(pid, { at: this.now(), value: lsofNames(out).filter((n) => n.startsWith('/')) }),
      );
    }
    return f?.value ?? [];
  }
}
