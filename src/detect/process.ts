// Which agent a process is, from what /proc says of it, by the identities it is given (each
// agent's, from its module). Pure: src/proc/ reads /proc.
import type { AgentId, ProcessInfo } from '../shared/types.js';
import { HOST_NAME } from '../shared/types.js';
import { jobId, SHORT_ID } from '../shared/fleet-id.js';

export type { ProcessInfo };

/** How /proc shows an agent: its executable's names, and the script Node runs for it. */
export interface ProcessIdentity {
  names: readonly string[];
  script: RegExp;
}

/** An agent that has a process (the fallback agent, the shell, has none of its own). */
export interface IdentifiedAgent {
  id: AgentId;
  process?: ProcessIdentity;
}

const base = (p: string | undefined): string => (p ? (p.split('/').pop() ?? '') : '');

/** Node-based CLIs show as `node <script>`: the script's name, and its package folder. */
function nodeScript(p: ProcessInfo): string | undefined {
  const name = base(p.exe) || base(p.argv[0]);
  if (!/^node(?:js)?(?:\d+)?$/.test(name) && p.comm !== 'node') return undefined;
  return p.argv.slice(1).find((a) => !a.startsWith('-'));
}

/**
 * The agent a single process is, or undefined: by its names, else by the script Node runs (see each agent's
 * module).
 */
export function agentOfProcess(agents: readonly IdentifiedAgent[], p: ProcessInfo): AgentId | undefined {
  const names = [p.comm, base(p.exe), base(p.argv[0])];
  const script = nodeScript(p);
  for (const a of agents) {
    if (a.process && names.some((n) => a.process!.names.includes(n))) return a.id;
  }
  for (const a of agents) {
    if (a.process && script && a.process.script.test(script)) return a.id;
  }
  return undefined;
}

export interface ProcessAgent {
  agent: AgentId;
  /** The process that is the agent (for Codex: its native child when there is one). */
  pid: number;
}

/**
 * The agent running among a terminal's descendants (given parents before children, as a walk from
 * the job's pid yields them), or undefined when none runs: the terminal is then a shell (or some
 * other program). The most recently started agent wins when several run (the outermost is usually a
 * wrapper). For Codex, the native `codex` child is the process whose files tell its session.
 */
export function agentOfTree(
  agents: readonly IdentifiedAgent[],
  processes: readonly ProcessInfo[],
): ProcessAgent | undefined {
  let found: ProcessAgent | undefined;
  for (const p of processes) {
    const agent = agentOfProcess(agents, p);
    if (agent) found = { agent, pid: p.pid };
  }
  return found;
}

/**
 * The background job a terminal shows when it runs `mado attach <id>` (node running mado's script,
 * or mado itself): its fleet id (`job:ID`, `job:NAME:ID` for a job of remote host NAME), or undefined.
 */
export function attachedJob(processes: readonly ProcessInfo[]): string | undefined {
  for (const p of processes) {
    const i = p.argv.indexOf('attach');
    const short = p.argv[i + 1] ?? '';
    if (i < 1 || !SHORT_ID.test(short)) continue;
    const mado = p.argv.slice(0, i).findIndex((a) => /(?:^|\/)(?:mado|mado\.js)$/.test(a));
    if (mado < 0) continue;
    // `mado --host NAME [-C DIR] attach ID`: a job of a remote host.
    const host = p.argv[mado + 1] === '--host' ? p.argv[mado + 2] : undefined;
    if (host !== undefined) return HOST_NAME.test(host) ? jobId(short, host) : undefined;
    return jobId(short);
  }
  return undefined;
}
