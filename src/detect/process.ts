// Which agent a process is, from what /proc says of it. Pure: src/proc/ reads /proc.
import { AGENT_MODULES } from '../agents/index.js';
import type { AgentId } from './types.js';

/** One process as /proc describes it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** /proc/<pid>/comm: the first 15 bytes of the executable's name (or a title the program set). */
  comm: string;
  /** /proc/<pid>/cmdline split at NULs. */
  argv: readonly string[];
  /** The target of /proc/<pid>/exe, or '' when it cannot be read. */
  exe: string;
}

const base = (p: string | undefined): string => (p ? (p.split('/').pop() ?? '') : '');

/** Node-based CLIs show as `node <script>`: the script's name, and its package folder. */
function nodeScript(p: ProcessInfo): string | undefined {
  const name = base(p.exe) || base(p.argv[0]);
  if (!/^node(?:js)?(?:\d+)?$/.test(name) && p.comm !== 'node') return undefined;
  return p.argv.slice(1).find((a) => !a.startsWith('-'));
}

/** The agent a single process is, or undefined: by its names, else by the script Node runs (see each agent's module). */
export function agentOfProcess(p: ProcessInfo): Exclude<AgentId, 'shell'> | undefined {
  const names = [p.comm, base(p.exe), base(p.argv[0])];
  const script = nodeScript(p);
  for (const a of AGENT_MODULES) {
    if (a.process && names.some((n) => a.process!.names.includes(n))) return a.id as Exclude<AgentId, 'shell'>;
  }
  for (const a of AGENT_MODULES) {
    if (a.process && script && a.process.script.test(script)) return a.id as Exclude<AgentId, 'shell'>;
  }
  return undefined;
}

export interface ProcessAgent {
  agent: Exclude<AgentId, 'shell'>;
  /** The process that is the agent (for Codex: its native child when there is one). */
  pid: number;
}

/**
 * The agent running among a terminal's descendants (given parents before children, as a walk from
 * the job's pid yields them), or undefined when none runs: the terminal is then a shell (or some
 * other program). The most recently started agent wins when several run (the outermost is usually a
 * wrapper). For Codex, the native `codex` child is the process whose files tell its session.
 */
export function agentOfTree(processes: readonly ProcessInfo[]): ProcessAgent | undefined {
  let found: ProcessAgent | undefined;
  for (const p of processes) {
    const agent = agentOfProcess(p);
    if (agent) found = { agent, pid: p.pid };
  }
  return found;
}

/**
 * The background job a terminal shows when it runs `mado attach <id>` (node running mado's script,
 * or mado itself): its id, or undefined.
 */
export function attachedJob(processes: readonly ProcessInfo[]): string | undefined {
  for (const p of processes) {
    const i = p.argv.indexOf('attach');
    if (i < 1 || !/^[0-9a-f]{8}$/.test(p.argv[i + 1] ?? '')) continue;
    if (p.argv.slice(0, i).some((a) => /(?:^|\/)(?:mado|mado\.js)$/.test(a))) return p.argv[i + 1];
  }
  return undefined;
}
