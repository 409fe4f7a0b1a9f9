// Desktop notifications: the notifier found at start (notify-send on Linux and the BSDs,
// terminal-notifier or osascript on macOS, or the user's command), each notice one run of it that
// never blocks and never outlives its bound. Where the notifier can, a summary replaces the notice of
// its burst, and a click on "Go there" goes to the agent in the Neovim that sent it.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { runnable } from '../jobs/program.js';
import path from 'node:path';
import type { Notice } from './attention.js';

export type NotifierKind = 'notify-send' | 'terminal-notifier' | 'osascript' | 'command';

export interface Notifier {
  kind: NotifierKind;
  /** The executable (a path). */
  exe: string;
  /** The user's arguments (a command of their own: `{title}`, `{body}`, `{urgency}` stand for the notice's). */
  args: string[];
  /** notify-send: "Go there" on the notice, its click read back (`--action`). */
  actions: boolean;
  /** notify-send: a summary replaces its burst's first notice (`--print-id`, `--replace-id`). */
  replace: boolean;
}

export type FoundNotifier = { ok: true; notifier: Notifier } | { ok: false; why: string };

/** How long a run that waits for a click lives; a run that does not wait, how long it may take. */
const WAIT_MS = 10 * 60 * 1000;
const RUN_MS = 10_000;
/** The most runs that wait for a click at once: past it, the oldest is ended (its notice stays, without "Go there"). */
export const MAX_WAITING = 8;
/** What a notifier prints that is read (its id, the action clicked): past it, its output is closed. */
const MAX_OUT = 4096;
/** The longest title and body given to a notifier. */
const MAX_TITLE = 200;
const MAX_BODY = 1000;
/** The most runs that wait for no click at once: a notice past them is not shown on the desktop (said in the log). */
export const MAX_RUNNING = 4;
/** How long a run asked to end (SIGTERM) has before it is killed (SIGKILL). */
export const KILL_AFTER_MS = 1000;
/** Shells: in a script of theirs a notice's text is never spliced, only named by its variable. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish', 'busybox']);

/** The environment a run of the user's command gets the notice in (a script names them: `"$MADOHUB_BODY"`). */
export const NOTICE_VARS = { title: 'MADOHUB_TITLE', body: 'MADOHUB_BODY', urgency: 'MADOHUB_URGENCY' } as const;

/** Whether the user's command is a shell and its arguments a script (`sh -c '… {body}'`): :checkhealth says so. */
export function runsShell(n: Notifier): boolean {
  return n.kind === 'command' && SHELLS.has(path.basename(n.exe));
}

/** `name`'s executable on `PATH`, or undefined. A name with a slash is taken as a path. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  if (name.includes('/')) return runnable(name) ? name : undefined;
  for (const dir of (env.PATH ?? '').split(':')) {
    if (dir === '') continue;
    const file = path.join(dir, name);
    if (runnable(file)) return file;
  }
  return undefined;
}

/**
 * The notifier to use: the user's command (`notify.desktop.command`: a list, its program first),
 * else the system's. Its capabilities are learnt by `probe` (notify-send only).
 */
export function findNotifier(
  command: readonly string[] | null,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): FoundNotifier {
  if (command && command.length > 0) {
    const exe = onPath(command[0]!, env);
    if (!exe)
      return { ok: false, why: `notify.desktop.command: ${command[0]!.slice(0, 200)} is not an executable on PATH` };
    const kind: NotifierKind = path.basename(exe) === 'notify-send' && command.length === 1 ? 'notify-send' : 'command';
    return { ok: true, notifier: { kind, exe, args: command.slice(1), actions: false, replace: false } };
  }
  const names: NotifierKind[] = platform === 'darwin' ? ['terminal-notifier', 'osascript'] : ['notify-send'];
  for (const kind of names) {
    const exe = onPath(kind, env);
    if (exe) return { ok: true, notifier: { kind, exe, args: [], actions: false, replace: false } };
  }
  const how =
    platform === 'darwin'
      ? 'osascript (or terminal-notifier)'
      : 'notify-send (Debian, Ubuntu: apt install libnotify-bin)';
  return { ok: false, why: `no desktop notifier: ${how} is not on PATH` };
}

/** What notify-send can do, from its `--help` (libnotify 0.7.9 and later: ids; 0.7.10: actions). Bounded. */
export function probe(n: Notifier): Promise<Notifier> {
  if (n.kind !== 'notify-send') return Promise.resolve(n);
  return new Promise((resolve) => {
    execFile(n.exe, ['--help'], { timeout: 2000, maxBuffer: 64 * 1024 }, (_err, stdout) => {
      const help = String(stdout ?? '');
      resolve({
        ...n,
        actions: help.includes('--action'),
        replace: help.includes('--print-id') && help.includes('--replace-id'),
      });
    });
  });
}

/** The arguments of one run for `notice` (`replaceId`: the notifier's id of the notice it replaces). */
export function notifierArgs(
  n: Notifier,
  notice: Notice,
  replaceId: string | undefined,
  withAction: boolean,
): string[] {
  const title = notice.title.slice(0, MAX_TITLE);
  const body = notice.body.slice(0, MAX_BODY);
  const urgency = notice.urgent ? 'critical' : 'normal';
  switch (n.kind) {
    case 'notify-send': {
      const args = ['-a', 'MadoHub', '-u', urgency];
      if (n.replace) args.push('-p');
      if (n.replace && replaceId) args.push('-r', replaceId);
      if (withAction) args.push('-A', 'jump=Go there');
      // `--`: a title that begins with a dash is no option.
      return [...args, '--', title, body];
    }
    case 'terminal-notifier':
      return [
        '-title',
        'MadoHub',
        '-subtitle',
        title,
        '-message',
        body,
        '-group',
        `madohub-${notice.replaces ?? notice.seq}`,
      ];
    case 'osascript':
      // The texts go as arguments, never into the script: nothing in them is AppleScript.
      return [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title "MadoHub" subtitle (item 1 of argv)',
        '-e',
        'end run',
        title,
        body,
      ];
    case 'command': {
      const texts = { title, body, urgency };
      // A placeholder is the notice's text, put in once (a text that holds `{body}` is not read again);
      // in a shell's script (the argument after its -c) it names the variable that holds the text: the
      // text is never code.
      const script = runsShell(n) ? n.args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a)) + 1 : 0;
      const put = (a: string, i: number): string =>
        a.replace(/\{(title|body|urgency)\}/g, (_m, k: keyof typeof texts) =>
          script > 0 && i === script ? `"$${NOTICE_VARS[k]}"` : texts[k],
        );
      const placed = n.args.some((a) => /\{(?:title|body)\}/.test(a));
      return placed ? n.args.map(put) : [...n.args.map(put), title, body];
    }
  }
}

export interface DesktopLog {
  debug(m: string): void;
  warn(m: string): void;
}

/** Runs the notifier for each notice; `onJump` gets the entry of a notice clicked ("Go there"). */
export class Desktop {
  /** The notifier's ids of the notices told (by their seq), for a summary to replace. */
  private readonly ids = new Map<number, string>();
  /** Runs that wait for a click, by their notice's seq. */
  private readonly waiting = new Map<number, ChildProcess>();
  /** Runs that wait for no click, until they exit. */
  private readonly running = new Set<ChildProcess>();
  /** Runs started, for the benchmark and the tests. */
  runs = 0;
  private failed = false;

  constructor(
    readonly notifier: Notifier,
    private readonly log: DesktopLog,
    private readonly onJump?: (entryId: string) => void,
    /** Told when a run has started (its process spawned), for the benchmark. */
    private readonly onStarted?: (notice: Notice) => void,
  ) {}

  show(notice: Notice): void {
    const withAction = this.notifier.actions && this.onJump !== undefined;
    const replaceId = notice.replaces === null ? undefined : this.ids.get(notice.replaces);
    const args = notifierArgs(this.notifier, notice, replaceId, withAction);
    // The notice replaced goes: its run waits for no click any more.
    if (notice.replaces !== null) {
      const replaced = this.waiting.get(notice.replaces);
      if (replaced) end(replaced);
      this.waiting.delete(notice.replaces);
      this.ids.delete(notice.replaces);
    }
    if (!withAction && this.running.size >= MAX_RUNNING) {
      this.log.debug(
        `desktop notifier ${this.notifier.exe}: ${this.running.size} runs still going; notice ${notice.seq} not shown`,
      );
      return;
    }
    // Its output is read only where it says something (notify-send's id, the action clicked); else it goes nowhere.
    const reads = this.notifier.kind === 'notify-send' && (this.notifier.replace || withAction);
    let child: ChildProcess;
    try {
      child = spawn(this.notifier.exe, args, {
        stdio: ['ignore', reads ? 'pipe' : 'ignore', 'ignore'],
        env: {
          ...process.env,
          [NOTICE_VARS.title]: notice.title.slice(0, MAX_TITLE),
          [NOTICE_VARS.body]: notice.body.slice(0, MAX_BODY),
          [NOTICE_VARS.urgency]: notice.urgent ? 'critical' : 'normal',
        },
      });
    } catch (err) {
      return this.fail(err);
    }
    this.runs++;
    // Bounded whatever it does with SIGTERM: killed past its time.
    const bound = setTimeout(() => end(child), withAction ? WAIT_MS : RUN_MS);
    bound.unref();
    child.once('spawn', () => this.onStarted?.(notice));
    child.once('error', (err) => this.fail(err));
    if (withAction) {
      this.waiting.set(notice.seq, child);
      for (const [seq, c] of this.waiting) {
        if (this.waiting.size <= MAX_WAITING) break;
        end(c);
        this.waiting.delete(seq);
      }
    } else this.running.add(child);
    let out = '';
    let read = 0;
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      read += chunk.length;
      if (read > MAX_OUT) {
        // A notifier that floods its output is not read on: it gets a broken pipe.
        child.stdout?.destroy();
        return;
      }
      out += chunk;
      const lines = out.split('\n');
      // notify-send -p prints the id first, then (once clicked) the action's name.
      for (const line of lines.slice(0, -1)) {
        const t = line.trim();
        if (/^\d{1,10}$/.test(t) && this.notifier.replace && !this.ids.has(notice.seq)) this.ids.set(notice.seq, t);
        else if (t === 'jump') this.onJump?.(notice.jump);
      }
      out = lines[lines.length - 1] ?? '';
    });
    child.once('exit', () => {
      clearTimeout(bound);
      this.running.delete(child);
      if (this.waiting.get(notice.seq) === child) this.waiting.delete(notice.seq);
    });
    // Ids of notices long replaced or closed are not kept without bound.
    if (this.ids.size > 64) this.ids.delete(this.ids.keys().next().value!);
  }

  /** The notifier's id of a notice, once read back from its output (what a summary replaces). */
  notifierId(seq: number): string | undefined {
    return this.ids.get(seq);
  }

  /** How many runs wait for a click now. */
  get waitingRuns(): number {
    return this.waiting.size;
  }

  /** How many runs that wait for no click are going now. */
  get runningRuns(): number {
    return this.running.size;
  }

  /** Every run that still waits for a click ends (the Neovim that would go there leaves). */
  stop(): void {
    for (const c of this.waiting.values()) end(c);
    this.waiting.clear();
  }

  private fail(err: unknown): void {
    // Said once in the log (and in :checkhealth): a notifier that fails is never loud.
    if (this.failed) return;
    this.failed = true;
    this.log.warn(`desktop notifier ${this.notifier.exe}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Asks a run to end (SIGTERM), and kills it (SIGKILL) if it is still there KILL_AFTER_MS later. */
function end(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const kill = setTimeout(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }, KILL_AFTER_MS);
  kill.unref();
  child.once('exit', () => clearTimeout(kill));
}
