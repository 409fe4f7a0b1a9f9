import { readFileSync } from 'node:fs';
import { AGENT_MODULES, detectScreen, isAgentId } from '../agents/index.js';
import type { AgentId } from '../shared/types.js';
import { UsageError } from '../shared/errors.js';
import { textRows } from '../shared/text.js';

export interface DetectArgs {
  file?: string;
  title: string;
  /** Read the screen as this agent's (as when the process tree names it). */
  agent?: AgentId;
}


export function parseDetectArgs(argv: readonly string[]): DetectArgs {
  const args: DetectArgs = { title: '' };
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
        throw new UsageError(`--agent ${value.replace(/[^\x20-\x7e]/g, '?').slice(0, 40)} is no agent (${AGENT_MODULES.map((a) => a.id).join(', ')})`);
      }
      args.agent = value as AgentId;
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

/** Splits a captured screen into rows and trims trailing blank rows, as the watcher does. */
export function screenLines(text: string): string[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  lines.length = textRows(lines);
  return lines;
}

/** `mado detect [FILE|-] [--title TITLE] [--agent NAME]`: one JSON line from the plugin's own detectors. */
export function runDetect(argv: readonly string[], readStdin: () => string): string {
  const args = parseDetectArgs(argv);
  const text = args.file === undefined ? readStdin() : readScreenFile(args.file);
  const d = detectScreen({ lines: screenLines(text), title: args.title }, undefined, args.agent);
  return JSON.stringify({ agent: d.agent, state: d.state, source: d.source, detail: d.detail });
}
