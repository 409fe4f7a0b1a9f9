// What :checkhealth shows of the Node side: this Node, node-pty, the watchers, the fleet, the daemon
// (asked with a connection, then nothing more; never started here), and each agent's program.
import { AGENT_MODULES, userRulesNow } from '../agents/index.js';
import { rulesDir } from '../agents/user-rules.js';
import type { RulesFileReport } from '../agents/user-rules.js';
import type { AgentHealthNote } from '../agents/types.js';
import type { FleetHub } from '../fleet/hub.js';
import { programProblem } from '../jobs/program.js';
import { daemonSocket, runtimeDir } from '../jobs/paths.js';
import { socketLive } from '../jobs/protocol/socket.js';
import { jobsDir } from '../jobs/store.js';
import type { TerminalWatchers } from '../state/terminal-watchers.js';
import type { Tracker } from '../state/tracker.js';
import { checkNodePty } from '../jobs/node-pty-check.js';
import type { AttentionHealth, NvimAttention } from './attention.js';
import type { NodePtyHealth } from '../jobs/node-pty-check.js';
import type { ReviewHealth } from '../review/bound.js';
import { pricesFile } from '../agents/prices.js';

/** Whether a daemon answers on its socket: `running`, `not running`, or why it cannot be asked. */
async function daemonAnswers(): Promise<string> {
  try {
    return (await socketLive(daemonSocket(runtimeDir()))) ? 'running' : 'not running';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** What :checkhealth shows of the Node side. */
export interface Health {
  node: string;
  pid: number;
  terminals: number;
  nodePty: NodePtyHealth;
  foldersWatched: number;
  /** Where processes are read from: `proc` (/proc) or `ps` (ps-list and lsof, where there is no /proc). */
  processes: 'proc' | 'ps';
  jobsDir: string;
  fleet: { terminals: number; jobs: number; sessions: number; editors: number };
  /** `running` (its socket answers), `not running`, or why it cannot be asked. */
  daemon: string;
  scans: number;
  rssBytes: number;
  /** The user's rule files (|madohub-rules|): the folder, and each file's rules and errors. */
  rules: { dir: string; files: RulesFileReport[] };
  /**
   * Every agent module, whether the program of its jobs is on this Neovim's PATH (`problem`: why not),
   * and what its module says of it (`notes`: what this machine lets it read).
   */
  agents: { id: string; name: string; program: string; problem: string | null; notes: AgentHealthNote[] }[];
  /** The notification channels outside the editor (|madohub-notify|). */
  notify: AttentionHealth;
  /** Each remote host (|madohub-hosts|): whether its link is up, its mado's version, or why it is offline. */
  hosts: { host: string; online: boolean; version: string; reason: string }[];
  /** The review's records (|madohub-review|): git, their size and bound, the turns not recorded. */
  review: ReviewHealth;
  /**
   * What the agents spend (|madohub-usage|): the agents whose records tell it and those whose records
   * tell none, the prices file, what was wrong with the prices and budget.
   */
  usage: { counted: string[]; none: string[]; pricesFile: string; problems: string[] };
}

/** The Node side's health now. */
export async function healthOf(
  tracker: Tracker,
  watchers: TerminalWatchers,
  hub: FleetHub,
  attention: NvimAttention,
  review: () => Promise<ReviewHealth>,
): Promise<Health> {
  const now: Health = {
    node: process.version,
    pid: process.pid,
    terminals: tracker.size,
    nodePty: checkNodePty(),
    foldersWatched: watchers.folders.size,
    processes: watchers.tree.kind,
    scans: watchers.scans,
    rssBytes: process.memoryUsage().rss,
    jobsDir: jobsDir(),
    fleet: {
      terminals: hub.count('terminal'),
      jobs: hub.count('job'),
      sessions: hub.count('session'),
      editors: hub.count('editor'),
    },
    daemon: 'not running',
    rules: { dir: rulesDir(), files: userRulesNow()?.files ?? [] },
    agents: AGENT_MODULES.filter((a) => !a.fallback).map((a) => {
      const program = a.template.command[0] ?? '';
      return {
        id: a.id,
        name: a.displayName,
        program,
        problem: programProblem(program, process.env.PATH, process.cwd()),
        notes: a.health?.() ?? [],
      };
    }),
    notify: attention.health(),
    hosts: hub.hostStatus().map(({ host, status }) => ({ host, ...status })),
    review: await review(),
    usage: {
      counted: AGENT_MODULES.filter((a) => !a.fallback && a.usage).map((a) => a.displayName),
      none: AGENT_MODULES.filter((a) => !a.fallback && !a.usage).map((a) => a.displayName),
      pricesFile: pricesFile(),
      problems: hub.spending.problems,
    },
  };
  return daemonAnswers().then(
    (daemon) => ({ ...now, daemon }),
    () => now,
  );
}
