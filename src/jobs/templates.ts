// What command line a job runs: a template per agent, configurable.
import path from 'node:path';
import { AGENT_MODULES, DEFAULT_AGENT } from '../agents/index.js';
import { isObj, strings } from '../shared/checks.js';
import { readConfigFile } from '../shared/files.js';
import { printable } from '../shared/text.js';
import { configHome } from '../shared/xdg.js';
import type { Isolation, Template } from '../agents/types.js';
import { ISOLATIONS } from '../agents/types.js';

/** Which session a job resumes: one by its id, or the agent's last one in the folder. */
export type Resume = { mode: 'id'; id: string } | { mode: 'continue' };

export type { Isolation, Template };
export const isIsolation = (v: unknown): v is Isolation => (ISOLATIONS as readonly unknown[]).includes(v);

/** The template a job runs when none is named: the default agent's. */
export const DEFAULT_TEMPLATE = DEFAULT_AGENT;

/** Each agent's template, from its module (the default agent's first). */
export const DEFAULT_TEMPLATES: Record<string, Template> = Object.fromEntries(
  [...AGENT_MODULES]
    .sort((a, b) => Number(b.default === true) - Number(a.default === true))
    .map((a) => [a.id, { name: a.id, ...a.template }]),
);

const MAX_TEMPLATES_BYTES = 256 * 1024;
const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/;

/** Templates: the defaults, overridden by `$MADOHUB_TEMPLATES` or `<config>/madohub/templates.json`. */
export function loadTemplates(env: NodeJS.ProcessEnv = process.env): {
  templates: Record<string, Template>;
  warnings: string[];
} {
  const file = env.MADOHUB_TEMPLATES || path.join(configHome(env), 'madohub', 'templates.json');
  const templates = { ...DEFAULT_TEMPLATES };
  const warnings: string[] = [];
  const r = readConfigFile(file, MAX_TEMPLATES_BYTES);
  if (!r.ok) {
    if (!r.missing) warnings.push(`${file}: ${r.why}; the default templates serve`);
    return { templates, warnings };
  }
  let value: unknown;
  try {
    value = JSON.parse(r.text);
  } catch {
    value = undefined;
  }
  if (!isObj(value)) {
    warnings.push(`${file} is not a JSON object; the default templates serve`);
    return { templates, warnings };
  }
  const list = (v: unknown): string[] | undefined => (strings(v) === null ? (v as string[]) : undefined);
  for (const [name, t] of Object.entries(value)) {
    if (!TEMPLATE_NAME.test(name)) {
      warnings.push(`${file}: '${printable(name, 40)}' is not a template name (letters, digits, - and _); skipped`);
      continue;
    }
    if (!isObj(t) || !list(t.command) || (t.command as string[]).length === 0) {
      warnings.push(`${file}: template '${name}' needs a command (a list of strings); skipped`);
      continue;
    }
    templates[name] = {
      name,
      description: typeof t.description === 'string' ? t.description.slice(0, 80) : name,
      command: t.command as string[],
      prompt: t.prompt === 'type' ? 'type' : 'arg',
      resume: list(t.resume),
      continue: list(t.continue),
      fork: list(t.fork),
      sessionId: list(t.sessionId),
    };
    if (t.isolation !== undefined && !isIsolation(t.isolation)) {
      warnings.push(`${file}: template '${name}': isolation must be "worktree" or "none"; "none" serves`);
    } else if (t.isolation) templates[name]!.isolation = t.isolation as Isolation;
  }
  return { templates, warnings };
}

/** The template of `name` (the default one when none is named), or an error that names the known ones. */
export function pickTemplate(
  templates: Record<string, Template>,
  name: string | undefined,
): { template: Template } | { error: string } {
  const t = templates[name ?? DEFAULT_TEMPLATE];
  if (t && Object.hasOwn(templates, name ?? DEFAULT_TEMPLATE)) return { template: t };
  return { error: `unknown agent '${printable(String(name), 40)}' (known: ${Object.keys(templates).join(', ')})` };
}

/**
 * The largest prompt a job takes. Linux takes one argument of at most 128 KiB (MAX_ARG_STRLEN), and
 * a prompt typed into an agent is no smaller a burden on it.
 */
export const MAX_PROMPT_BYTES = 120 * 1024;

/** Why a prompt cannot be given to a job, or null. */
export function promptProblem(prompt: string): string | null {
  const n = Buffer.byteLength(prompt);
  if (n <= MAX_PROMPT_BYTES) return null;
  return `the prompt is ${Math.ceil(n / 1024)} KiB, and a job takes at most ${MAX_PROMPT_BYTES / 1024} KiB: put the text in a file and name the file in the prompt`;
}

/**
 * The argv a job runs. A new session of an agent that can be told its id (Claude Code) takes the
 * job's `sessionId`, so that `mado respawn` can resume it later. A prompt given as an argument
 * follows `--`, so that whatever it starts with it is no option.
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
  // After `--`: a prompt is a prompt, never an option (`--dangerously-skip-permissions` as a task).
  if (prompt && t.prompt === 'arg') argv.push('--', prompt);
  return argv;
}
