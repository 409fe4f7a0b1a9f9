import { readFileSync } from 'node:fs';
import { AGENT_MODULES, detectScreen, explainScreen, isAgentId, userRulesNow, useUserRules } from '../agents/index.js';
import type { UserRules } from '../agents/user-rules.js';
import { explanationText } from '../detect/explain.js';
import type { AgentId } from '../shared/types.js';
import { UsageError } from '../shared/errors.js';
import { printable, textRows } from '../shared/text.js';

export interface DetectArgs {
  file?: string;
  title: string;
  /** Read the screen as this agent's (as when the process tree names it). */
  agent?: AgentId;
  /** Say why: the rule that decided, its line, the agent's identity, the rules passed over. */
  explain: boolean;
  /** With --explain: the explanation as one JSON line. */
  json: boolean;
}

export function parseDetectArgs(argv: readonly string[]): DetectArgs {
  const args: DetectArgs = { title: '', explain: false, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--title') {
      const value = argv[++i];
      if (value === undefined) throw new UsageError('--title needs a value');
      args.title = value;
    } else if (arg.startsWith('--title=')) {
      args.title = arg.slice('--title='.length);
    } else if (arg === '--agent' || arg.startsWith('--agent=')) {
      const value = arg === '--agent' ? argv[++i] : arg.slice('--agent='.length);
      if (value === undefined) throw new UsageError('--agent needs a value');
      if (!isAgentId(value)) {
        throw new UsageError(
          `--agent ${printable(value, 40)} is no agent (${AGENT_MODULES.map((a) => a.id).join(', ')})`,
        );
      }
      args.agent = value as AgentId;
    } else if (arg === '--explain') {
      args.explain = true;
    } else if (arg === '--json') {
      args.json = true;
    } else if (arg === '-') {
      args.file = undefined;
    } else if (arg.startsWith('-')) {
      throw new UsageError(`unknown option ${arg}`);
    } else if (args.file !== undefined) {
      throw new UsageError('one FILE at most');
    } else {
      args.file = arg;
    }
  }
  return args;
}

function readScreenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    throw new UsageError(`cannot read ${file}: ${code}`);
  }
}

/** The most of a screen file read (a captured screen is a few KB; the reading looks at 150 rows). */
export const MAX_SCREEN_FILE = 1024 * 1024;

/** Splits a captured screen into rows and trims trailing blank rows, as the watcher does. */
export function screenLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.length = textRows(lines);
  return lines;
}

/**
 * `mado detect [FILE|-] [--title TITLE] [--agent NAME] [--explain [--json]]`: one JSON line from the
 * plugin's own detectors, or why it reads so.
 */
export function runDetect(
  argv: readonly string[],
  readStdin: () => string,
  user: { rulesDir?: string; warn?: (line: string) => void } = {},
): string {
  const args = parseDetectArgs(argv);
  // The user's rule files (|madohub-rules|) read the screen too, as in Neovim; what they refused is
  // said, and a file turned off while it read this screen (over its time budget) after it.
  const told = new Set<string>();
  const tell = (rules: UserRules | undefined): void => {
    for (const f of rules?.files ?? []) {
      for (const e of f.errors) {
        if (told.has(`${f.file}\0${e}`)) continue;
        told.add(`${f.file}\0${e}`);
        user.warn?.(`mado detect: ${f.file}: ${e}`);
      }
    }
  };
  useUserRules(user.rulesDir, tell);
  try {
    return readScreen(args, readStdin);
  } finally {
    tell(userRulesNow());
  }
}

function readScreen(args: ReturnType<typeof parseDetectArgs>, readStdin: () => string): string {
  if (args.json && !args.explain) throw new UsageError('--json goes with --explain (mado detect prints JSON already)');
  const raw = args.file === undefined ? readStdin() : readScreenFile(args.file);
  // The end of a big file is what a terminal shows.
  const text = raw.length > MAX_SCREEN_FILE ? raw.slice(raw.length - MAX_SCREEN_FILE) : raw;
  const screen = { lines: screenLines(text), title: args.title };
  if (args.explain) {
    const e = explainScreen(screen, undefined, args.agent);
    return args.json ? JSON.stringify(e) : explanationText(e).join('\n');
  }
  const d = detectScreen(screen, undefined, args.agent);
  return JSON.stringify({ agent: d.agent, state: d.state, source: d.source, detail: d.detail, rule: d.rule ?? null });
}
