// `mado --bg …`: its arguments, its standard input, and the hint block it prints.
import type { Resume } from '../jobs/templates.js';
import { promptProblem } from '../jobs/templates.js';
import { SESSION_REF } from '../shared/types.js';
import { safeText } from '../shared/args.js';
import { UsageError } from '../shared/errors.js';

export interface BgArgs {
  agent?: string;
  name?: string;
  resume?: Resume;
  forkSession: boolean;
  /** Run the job in a git worktree of its own (on this branch, or `mado/<short>`). */
  worktree?: { branch?: string };
  /** The prompt words joined by spaces ('' when none). */
  prompt: string;
  /** Said on stderr, and the dispatch goes on. */
  warnings: string[];
}

/** Standard input longer than this is cut, with a notice. */
export const MAX_STDIN_BYTES = 16 * 1024;

/** Parses what follows `--bg` (or `--background`). */
export function parseBgArgs(argv: readonly string[]): BgArgs {
  const args: BgArgs = { forkSession: false, prompt: '', warnings: [] };
  const words: string[] = [];
  const value = (i: number, flag: string): string => {
    const v = argv[i];
    if (v === undefined || v.startsWith('-')) throw new UsageError(`${flag} needs a value`);
    return v;
  };
  const setResume = (r: Resume, flag: string): void => {
    if (args.resume) throw new UsageError(`${flag} and an earlier --resume/--continue exclude each other`);
    args.resume = r;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      words.push(...argv.slice(i + 1));
      break;
    }
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const inline = eq > 0 ? a.slice(eq + 1) : undefined;
    const take = (): string => inline ?? value(++i, flag);
    switch (flag) {
      case '--agent':
        args.agent = take();
        break;
      case '-n':
      case '--name':
        args.name = take();
        break;
      case '--resume': {
        const id = take();
        if (!SESSION_REF.test(id))
          throw new UsageError(`--resume needs a session id, not '${safeText(id).slice(0, 60)}'`);
        setResume({ mode: 'id', id }, flag);
        break;
      }
      case '-c':
      case '--continue':
        setResume({ mode: 'continue' }, flag);
        break;
      case '--fork-session':
        args.forkSession = true;
        break;
      case '-w':
      case '--worktree':
        // The branch only as --worktree=BRANCH: a bare --worktree must not eat the prompt's first word.
        if (inline !== undefined && (inline === '' || inline.startsWith('-'))) {
          throw new UsageError(`--worktree=BRANCH needs a branch name, not '${safeText(inline).slice(0, 60)}'`);
        }
        args.worktree = inline ? { branch: inline } : {};
        break;
      case '--session-id':
        take();
        args.warnings.push('--session-id is ignored: mado gives each job its own session id');
        break;
      default:
        if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a} (see mado --help)`);
        words.push(a);
    }
  }
  if (args.forkSession && !args.resume) throw new UsageError('--fork-session needs --resume ID or --continue');
  args.prompt = words.join(' ');
  const tooLarge = promptProblem(args.prompt);
  if (tooLarge) throw new UsageError(tooLarge);
  return args;
}

/**
 * Appends piped standard input to the prompt, cut at 16 KiB, NUL bytes dropped (a command line cannot
 * hold them), each with a notice in `warnings`.
 */
export function withStdin(args: BgArgs, stdin: string | undefined): BgArgs {
  if (stdin === undefined || stdin.trim() === '') return args;
  const nuls = stdin.split('\0').length - 1;
  let text = nuls > 0 ? stdin.replaceAll('\0', '') : stdin;
  if (nuls > 0)
    args.warnings.push(
      `standard input held ${nuls} NUL byte${nuls === 1 ? '' : 's'}, dropped (a prompt cannot hold them)`,
    );
  const bytes = Buffer.byteLength(text);
  if (bytes > MAX_STDIN_BYTES) {
    text = Buffer.from(text)
      .subarray(0, MAX_STDIN_BYTES)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    args.warnings.push(`standard input cut at 16 KiB (${Math.ceil(bytes / 1024)} KiB given)`);
  }
  const prompt = args.prompt ? `${args.prompt}\n\n${text}` : text;
  const tooLarge = promptProblem(prompt);
  if (tooLarge) throw new UsageError(tooLarge);
  return { ...args, prompt };
}

/**
 * How long `mado --bg TASK` (a task on the line) waits for the first byte of standard input: what a
 * pipe brings soon joins the task; a pipe its caller keeps open and never writes is none.
 */
export const BG_STDIN_FIRST_BYTE_MS = 2000;

/** What `mado --bg` prints once the job is dispatched. */
export function hintBlock(short: string, host?: string): string {
  // A job started from another machine (`mado --host NAME --bg`) is named as that machine reaches it.
  const mado = host ? `mado --host ${host}` : 'mado';
  const rows: [string, string][] = [
    [`${mado} jobs`, 'list jobs'],
    [`${mado} attach ${short}`, 'open in this terminal (Ctrl-] detaches, the job goes on)'],
    [`${mado} logs ${short}`, 'show recent output'],
    [`${mado} stop ${short}`, 'stop this job'],
  ];
  const width = Math.max(...rows.map(([c]) => c.length));
  return `${[`backgrounded · ${short}`, ...rows.map(([c, d]) => `  ${c.padEnd(width)}  ${d}`)].join('\n')}\n`;
}
