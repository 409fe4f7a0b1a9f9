// What command line a job runs: a template per agent, configurable.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import type { Resume } from '../cli/bg.js';

export interface Template {
  name: string;
  description: string;
  /** The program and its fixed arguments. */
  command: string[];
  /** How the first prompt reaches the agent: as the last argument, or typed once it is up. */
  prompt: 'arg' | 'type';
  /** Arguments that resume a session (`{id}` is replaced), continue the last one, fork it. */
  resume?: string[];
  continue?: string[];
  fork?: string[];
  /** Arguments that make a new session take the job's own session id (`{session}` is replaced). */
  sessionId?: string[];
  /** `worktree`: its jobs run in a git worktree of their own unless a dispatch says `none`. */
  isolation?: Isolation;
}

/** Where a job may write: in a git worktree of its own, or in the folder it was started from. */
export type Isolation = 'worktree' | 'none';
const ISOLATIONS: readonly Isolation[] = ['worktree', 'none'];
export const isIsolation = (v: unknown): v is Isolation => (ISOLATIONS as readonly unknown[]).includes(v);

export const DEFAULT_TEMPLATE = 'claude';

export const DEFAULT_TEMPLATES: Record<string, Template> = {
  claude: {
    name: 'claude',
    description: 'Claude Code',
    command: ['claude'],
    prompt: 'arg',
    resume: ['--resume', '{id}'],
    continue: ['--continue'],
    fork: ['--fork-session'],
    sessionId: ['--session-id', '{session}'],
  },
  codex: {
    name: 'codex',
    description: 'OpenAI Codex CLI',
    command: ['codex'],
    prompt: 'arg',
    resume: ['resume', '{id}'],
    continue: ['resume', '--last'],
  },
  gemini: { name: 'gemini', description: 'Gemini CLI', command: ['gemini'], prompt: 'type' },
  opencode: { name: 'opencode', description: 'OpenCode', command: ['opencode'], prompt: 'type' },
  amp: { name: 'amp', description: 'Amp', command: ['amp'], prompt: 'type' },
  shell: { name: 'shell', description: 'A login shell', command: [process.env.SHELL || 'bash', '-l'], prompt: 'type' },
};

/** Templates: the defaults, overridden by `$MADOHUB_TEMPLATES` or `<config>/madohub/templates.json`. */
export function loadTemplates(env: NodeJS.ProcessEnv = process.env): { templates: Record<string, Template>; warnings: string[] } {
  const file =
    env.MADOHUB_TEMPLATES ||
    path.join(env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config'), 'madohub', 'templates.json');
  const templates = { ...DEFAULT_TEMPLATES };
  const warnings: string[] = [];
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { templates, warnings };
  }
  try {
    const value = JSON.parse(text) as Record<string, Partial<Template>>;
    for (const [name, t] of Object.entries(value)) {
      if (!Array.isArray(t.command) || !t.command.every((c) => typeof c === 'string') || t.command.length === 0) {
        warnings.push(`${file}: template '${name}' needs a command (a list of strings); skipped`);
        continue;
      }
      templates[name] = {
        name,
        description: typeof t.description === 'string' ? t.description : name,
        command: t.command,
        prompt: t.prompt === 'type' ? 'type' : 'arg',
        resume: t.resume,
        continue: t.continue,
        fork: t.fork,
        sessionId: t.sessionId,
      };
      if (t.isolation !== undefined && !isIsolation(t.isolation)) {
        warnings.push(`${file}: template '${name}': isolation must be "worktree" or "none"; "none" serves`);
      } else if (t.isolation) templates[name]!.isolation = t.isolation;
    }
  } catch {
    warnings.push(`${file} is not JSON; the default templates serve`);
  }
  return { templates, warnings };
}

/** The template of `name`; an unknown name warns and falls back to the default template. */
export function pickTemplate(
  templates: Record<string, Template>,
  name: string | undefined,
): { template: Template; warning?: string } {
  if (name === undefined) return { template: templates[DEFAULT_TEMPLATE]! };
  const t = templates[name];
  if (t) return { template: t };
  return {
    template: templates[DEFAULT_TEMPLATE]!,
    warning: `unknown agent '${name}' (known: ${Object.keys(templates).join(', ')}); using ${DEFAULT_TEMPLATE}`,
  };
}

/**
 * The argv a job runs. A new session of an agent that can be told its id (Claude Code) takes the
 * job's `sessionId`, so that `mado respawn` can resume it later.
 */
export function commandLine(
  t: Template,
  prompt: string,
  resume: Resume | undefined,
  fork: boolean,
  sessionId?: string,
): string[] {
  const argv = [...t.command];
  if (!resume && sessionId && t.sessionId) argv.push(...t.sessionId.map((a) => a.replace('{session}', sessionId)));
  if (resume?.mode === 'id' && t.resume) argv.push(...t.resume.map((a) => a.replace('{id}', resume.id)));
  if (resume?.mode === 'continue' && t.continue) argv.push(...t.continue);
  if (fork && resume && t.fork) argv.push(...t.fork);
  if (prompt && t.prompt === 'arg') argv.push(prompt);
  return argv;
}

/** Environment variables a job gets: these names, and names with these prefixes; nothing else. */
export const ENV_NAMES = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'TERM', 'COLORTERM', 'TMPDIR', 'TZ', 'EDITOR', 'VISUAL',
  // How an agent reaches its model behind a proxy or a private CA: without these it cannot work there.
  'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'ALL_PROXY', 'all_proxy',
  'NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR',
];
export const ENV_PREFIXES = ['LC_', 'XDG_', 'ANTHROPIC_', 'CLAUDE_', 'OPENAI_', 'CODEX_', 'GEMINI_', 'GOOGLE_', 'OPENCODE_', 'AMP_'];

/** The whitelisted part of `env`; `$MADOHUB_JOB_ENV` adds names (or `PREFIX_*`), comma-separated. */
export function jobEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const extra = (env.MADOHUB_JOB_ENV ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const names = new Set([...ENV_NAMES, ...extra.filter((e) => !e.endsWith('*'))]);
  const prefixes = [...ENV_PREFIXES, ...extra.filter((e) => e.endsWith('*')).map((e) => e.slice(0, -1))];
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    if (names.has(k) || prefixes.some((p) => k.startsWith(p))) out[k] = v;
  }
  return out;
}
