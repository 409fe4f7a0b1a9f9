// An operation is one entry (issue 28): one file of src/ops/ holds a verb's name, its arguments'
// and its result's schemas, its command-line form and what it does. The generated registry
// (registry.ts) feeds every place that runs it: `mado VERB`, `mado --host NAME VERB` (`mado VERB`
// there, through the daemon's link), the Lua side (lua/madohub/ops.lua, by name; a remote row's by
// its host's bridge, which runs the same entry there and sends the result back as data), the help.
// Its result is data; only `show` makes words of it, at the edge.
import type { Io } from '../jobs/client/daemon.js';
import type { Check, Fields } from '../shared/checks.js';
import { fieldsGuard, holdsCheck } from '../shared/checks.js';
import { JobError, UsageError } from '../shared/errors.js';

/** How long an operation may take unless it says. */
const OP_WAIT_MS = 30_000;

/** Where an operation runs: this machine's jobs and daemon, through `io` (quiet for Neovim and a bridge). */
export interface OpContext {
  io: Io;
  /** The folder it runs in when not this process's (the one a host's settings name, for another machine's calls). */
  cwd?: string;
}

/** What of standard input an operation takes given its words: none, or all (what comes soon with `firstByteMs`). */
export type StdinUse = { firstByteMs?: number } | undefined;

/** An operation as its file defines it: `S` its arguments' schema, `R` its result. */
export interface OpDefinition<S extends Record<string, Check>, R> {
  /** Its name: Lua calls it by it, and it is its verb (`mado NAME`) unless `verbs` says. */
  name: string;
  /** Its verbs on the command line when they are not its name (`--bg`, `--background`). */
  verbs?: readonly string[];
  /** What follows `mado ` in its usage line (`kill ID`), its first verb first. */
  usage: string;
  /** What it does, in the help's words. */
  summary: string;
  /** Its arguments, as Lua and the link give them: checked before it runs. */
  args: S;
  /** How long it may take (another machine's answer is waited for this long, and the link's time). */
  waitMs?: number;
  /** Its result, checked when another machine sends it. */
  result: Check<R>;
  /** Its arguments from the command line's words after the verb (a UsageError when they are none). */
  fromArgv(argv: readonly string[]): Fields<S>;
  /**
   * What it carries to a job is a person's words (a reply): it ends the chain of routed text that
   * reached that job, as the user's typing in its terminal does.
   */
  byPerson?: boolean;
  /**
   * It starts an agent: run on another machine for a person, it takes what the job names of this
   * side's environment ($MADOHUB_JOB_ENV), as it does here.
   */
  startsAgent?: boolean;
  /** What of standard input it reads given its words (none unless it says); read here when run on another machine. */
  stdin?(argv: readonly string[]): StdinUse;
  /** Does it here. */
  run(ctx: OpContext, args: Fields<S>): Promise<R>;
  /**
   * Does it for a person at a terminal when its words are more than its result (a log followed as
   * it comes): `mado NAME` calls this instead of `run` and `show`.
   */
  print?(ctx: OpContext, args: Fields<S>): Promise<void>;
  /** Its result in words, as `mado` prints it. */
  show(result: R): string;
}

/** An operation of the registry: its types closed over, its arguments and results checked at its door. */
export interface Op {
  readonly name: string;
  /** Its verbs on the command line, the first the one its usage shows. */
  readonly verbs: readonly string[];
  readonly usage: string;
  readonly summary: string;
  readonly waitMs: number;
  readonly byPerson: boolean;
  readonly startsAgent: boolean;
  /** What of standard input it reads given its words. */
  stdin(argv: readonly string[]): StdinUse;
  /** Its arguments from the command line (a UsageError when they are none). */
  fromArgv(argv: readonly string[]): object;
  /** Runs it here on arguments from anywhere (checked first: a UsageError names the field). */
  run(ctx: OpContext, args: unknown): Promise<unknown>;
  /** Does it for a person at a terminal (`mado NAME`): its words, as they come. */
  print(ctx: OpContext, args: unknown): Promise<void>;
  /** Why a result from anywhere (another machine's too) is none of its, or null. */
  resultProblem(result: unknown): string | null;
  /** A result from anywhere, checked, in words. */
  show(result: unknown): string;
}

/** The entry of an operation's file: `export const NAME = defineOp({ … })`. */
export function defineOp<S extends Record<string, Check>, R>(def: OpDefinition<S, R>): Op {
  const guard = fieldsGuard(def.args);
  const checked = (args: unknown): Fields<S> => {
    const fields = guard(args);
    if (typeof fields === 'string') throw new UsageError(fields);
    return fields;
  };
  const show = (result: unknown): string => {
    if (!holdsCheck(def.result, result)) throw new JobError(`${def.name}'s result is none: ${def.result(result)}`);
    return def.show(result);
  };
  return {
    name: def.name,
    verbs: def.verbs ?? [def.name],
    usage: def.usage,
    summary: def.summary,
    waitMs: def.waitMs ?? OP_WAIT_MS,
    byPerson: def.byPerson === true,
    startsAgent: def.startsAgent === true,
    stdin: (argv) => def.stdin?.(argv),
    fromArgv: (argv) => def.fromArgv(argv),
    run: async (ctx, args) => def.run(ctx, checked(args)),
    print: async (ctx, args) => {
      const fields = checked(args);
      if (def.print) return def.print(ctx, fields);
      ctx.io.out(show(await def.run(ctx, fields)));
    },
    resultProblem: (result) => def.result(result),
    show,
  };
}
