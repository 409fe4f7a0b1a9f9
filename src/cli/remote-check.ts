// `mado host check`'s report: the line it writes into a host's shell, and what it reads back from
// there (the other side's Node, its `mado bridge --check`: version, protocol, node-pty, daemon, jobs
// and their agents). Pure; what the other side says is hostile text, bounded and made safe here.
import { isObj } from '../shared/checks.js';
import { safeText } from '../shared/text.js';
import { AGENT_ID, isAgentState } from '../shared/types.js';
import type { AgentState } from '../shared/types.js';
import { SHORT_ID } from '../jobs/types.js';

/** The most agents a check lists (the rest are counted). */
export const CHECK_AGENTS = 50;

/** One agent of the other side, as the check lists it. */
export interface CheckedAgent {
  id: string;
  agent: string;
  state: AgentState;
  name: string;
}

/** An agent the other side said, or none when it is not one. */
function checkedAgent(v: unknown): CheckedAgent[] {
  if (
    !isObj(v) ||
    typeof v.id !== 'string' ||
    !SHORT_ID.test(v.id) ||
    typeof v.agent !== 'string' ||
    !AGENT_ID.test(v.agent) ||
    !isAgentState(v.state) ||
    typeof v.name !== 'string'
  )
    return [];
  return [{ id: v.id, agent: v.agent || '-', state: v.state, name: safeText(v.name).slice(0, 80) }];
}

/**
 * The line written into a host's shell by `host check`: what `node --version` and `mado bridge
 * --check` say there, between marks (shell builtins only: a bare machine may lack even `head`).
 */
export function checkScript(mado: string): string {
  return [
    "printf '@@madohub-check\\n'",
    'node --version 2>&1',
    "printf '\\n@@madohub-bridge\\n'",
    `${mado} bridge --check 2>&1`,
    `printf '${CHECK_END.replaceAll('\n', '\\n')}'`,
    'exit',
  ].join('; ');
}

/** The report's last mark: once it is read, the report is in. */
export const CHECK_END = '\n@@madohub-end\n';

export interface CheckReport {
  node?: string;
  bridge?: { version?: string; proto?: number; pty?: string; daemon?: string; jobs?: number; agents?: CheckedAgent[] };
  /** What the other side said instead of the bridge's report (why `mado` did not run). */
  bridgeError?: string;
}

/** The report between the marks of `host check`'s output (what a hostile side says is only text). */
export function parseCheck(out: string): CheckReport | undefined {
  const from = out.indexOf('@@madohub-check\n');
  const mid = out.indexOf('\n@@madohub-bridge\n', from);
  const to = out.indexOf('\n@@madohub-end', mid);
  if (from < 0 || mid < 0 || to < 0) return undefined;
  const lines = (text: string): string[] =>
    text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
  const report: CheckReport = { node: lines(out.slice(from + '@@madohub-check\n'.length, mid))[0]?.slice(0, 200) };
  const said = lines(out.slice(mid + '\n@@madohub-bridge\n'.length, to));
  const last = said.at(-1) ?? '';
  try {
    const v = JSON.parse(last) as Record<string, unknown>;
    report.bridge = {
      version: typeof v.version === 'string' ? v.version.slice(0, 40) : undefined,
      proto: typeof v.proto === 'number' ? v.proto : undefined,
      pty: typeof v.pty === 'string' ? v.pty.slice(0, 400) : undefined,
      daemon: typeof v.daemon === 'string' ? v.daemon.slice(0, 200) : undefined,
      jobs: typeof v.jobs === 'number' && Number.isSafeInteger(v.jobs) && v.jobs >= 0 ? v.jobs : undefined,
      agents: Array.isArray(v.agents) ? v.agents.slice(0, CHECK_AGENTS).flatMap(checkedAgent) : undefined,
    };
  } catch {
    report.bridgeError = last.slice(0, 400);
  }
  return report;
}
