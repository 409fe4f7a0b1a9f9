// The remote hosts by name: `$XDG_CONFIG_HOME/madohub/hosts.json` (and Neovim's `setup({ hosts = … })`,
// which the Neovim side passes as the same table). A host is a command that gives a shell on the
// other side (`ssh -T box`, `docker exec -i NAME sh`, `kubectl exec -i POD -- sh`); MadoHub writes one
// line into that shell, which starts `mado bridge` there. Each entry is checked: a wrong one is said
// and left out, the others kept.
import path from 'node:path';
import { isObj } from '../../shared/checks.js';
import { readConfigFile } from '../../shared/files.js';
import { printable, safeText } from '../../shared/text.js';
import { configHome } from '../../shared/xdg.js';
import { HOST_NAME } from '../../shared/types.js';

export interface HostConfig {
  /** The command, as an argument list (no shell on this side). */
  command: string[];
  /** How `mado` is run in the shell on the other side (a command line for that shell). */
  mado: string;
  /** The folder on the other side the host's verbs run in (`--bg` starts its job there); none: the shell's. */
  cwd?: string;
  /**
   * How long the link may take to come up (ms); none: DEFAULT_CONNECT_MS for a verb, 2 s for a listing of
   * every host.
   */
  connectMs?: number;
}

export { HOST_NAME };
export const HOSTS_FILE = 'hosts.json';
const MAX_FILE = 64 * 1024;
const MAX_HOSTS = 64;
const MAX_ARGS = 64;
const MAX_ARG = 4096;
/** What a link may take to come up by default: ssh's own handshake and the other side's Node start. */
export const DEFAULT_CONNECT_MS = 15_000;

/** `$XDG_CONFIG_HOME/madohub/hosts.json`. */
export const hostsFile = (env: NodeJS.ProcessEnv): string => path.join(configHome(env), 'madohub', HOSTS_FILE);

/** Text that goes into the other side's shell line: printable, no newline, no NUL. */
const lineSafe = (v: unknown, max: number): v is string =>
  typeof v === 'string' && v.length > 0 && v.length <= max && !/[\x00-\x1f\x7f]/.test(v);

/** The hosts in `v` (the file's table, or Lua's), and what was wrong with each entry left out. */
export function parseHosts(v: unknown, where: string): { hosts: Map<string, HostConfig>; problems: string[] } {
  const hosts = new Map<string, HostConfig>();
  const problems: string[] = [];
  if (v === undefined || v === null) return { hosts, problems };
  if (!isObj(v)) return { hosts, problems: [`${where}: must be a table of hosts by name`] };
  for (const [name, entry] of Object.entries(v)) {
    const say = (why: string): void => void problems.push(`${where}: host '${printable(name, 40)}' ${why}`);
    if (hosts.size >= MAX_HOSTS) {
      say(`left out: at most ${MAX_HOSTS} hosts`);
      continue;
    }
    if (!HOST_NAME.test(name) || name === 'local') {
      say("left out: a name is letters, digits, '.', '_' or '-' (at most 32, not 'local')");
      continue;
    }
    if (!isObj(entry)) {
      say('left out: must be a table with a command');
      continue;
    }
    const cmd = entry.command;
    if (
      !Array.isArray(cmd) ||
      cmd.length === 0 ||
      cmd.length > MAX_ARGS ||
      !cmd.every((a) => typeof a === 'string' && a.length <= MAX_ARG && !a.includes('\0'))
    ) {
      say(`left out: command must be a list of 1 to ${MAX_ARGS} strings (["ssh", "-T", "box"])`);
      continue;
    }
    if (cmd[0] === '') {
      say('left out: its command names no program');
      continue;
    }
    if (entry.mado !== undefined && !lineSafe(entry.mado, 1024)) {
      say('left out: mado must be a command line of at most 1024 printable characters');
      continue;
    }
    if (entry.cwd !== undefined && !lineSafe(entry.cwd, 1024)) {
      say('left out: cwd must be a folder of at most 1024 printable characters');
      continue;
    }
    const connect = entry.connect_ms;
    if (
      connect !== undefined &&
      !(typeof connect === 'number' && Number.isInteger(connect) && connect >= 500 && connect <= 120_000)
    ) {
      say('left out: connect_ms must be a whole number of ms from 500 to 120000');
      continue;
    }
    for (const k of Object.keys(entry))
      if (!['command', 'mado', 'cwd', 'connect_ms'].includes(k))
        say(`has an unknown field '${printable(k, 40)}' (passed over)`);
    hosts.set(name, {
      command: [...(cmd as string[])],
      mado: (entry.mado as string | undefined) ?? 'mado',
      ...(entry.cwd === undefined ? {} : { cwd: entry.cwd as string }),
      ...(connect === undefined ? {} : { connectMs: connect as number }),
    });
  }
  return { hosts, problems };
}

/** The hosts of the user's hosts.json (none when it is missing), and what was wrong with it. */
export function readHosts(env: NodeJS.ProcessEnv): { hosts: Map<string, HostConfig>; problems: string[] } {
  const file = hostsFile(env);
  const r = readConfigFile(file, MAX_FILE);
  if (!r.ok) return { hosts: new Map(), problems: r.missing ? [] : [`${file}: ${r.why}`] };
  let v: unknown;
  try {
    v = JSON.parse(r.text);
  } catch (err) {
    return { hosts: new Map(), problems: [`${file}: not JSON (${err instanceof Error ? err.message : String(err)})`] };
  }
  return parseHosts(v, file);
}

/**
 * The hosts of hosts.json and those of setup({ hosts }) beside them (setup's win a name both give),
 * and hosts.json's own (`file`). `before`: hosts.json's hosts as read the last time; a file that now
 * gives none but says what is wrong (half written, not JSON) keeps them, and says so.
 */
export function allHosts(
  env: NodeJS.ProcessEnv,
  fromSetup: unknown,
  before?: ReadonlyMap<string, HostConfig>,
): { hosts: Map<string, HostConfig>; file: Map<string, HostConfig>; problems: string[] } {
  const read = readHosts(env);
  const keep = before !== undefined && before.size > 0 && read.hosts.size === 0 && read.problems.length > 0;
  const file = keep ? new Map(before) : read.hosts;
  const problems = keep ? read.problems.map((p) => `${p}; the hosts read before are kept`) : read.problems;
  // Lua's empty table comes as an empty list.
  const setup = parseHosts(
    Array.isArray(fromSetup) && fromSetup.length === 0 ? undefined : fromSetup,
    'setup({ hosts })',
  );
  return { hosts: new Map([...file, ...setup.hosts]), file, problems: [...problems, ...setup.problems] };
}

/** A variable's name that holds a secret (`ANTHROPIC_API_KEY`, `GH_TOKEN`, `DB_PASSWORD`). */
const SECRET_NAME = /(?:KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL)/i;

/** A host's command for a person: one line, safe to print, a secret given as `NAME=value` shown as `NAME=…`. */
export function shownCommand(command: readonly string[]): string {
  return command
    .map((a) => {
      const eq = a.indexOf('=');
      return eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a.slice(0, eq)) && SECRET_NAME.test(a.slice(0, eq))
        ? `${a.slice(0, eq)}=…`
        : a;
    })
    .map((a) => safeText(a).slice(0, 200))
    .join(' ');
}

/** A host as hosts.json writes it (what a client sends the daemon, which checks it again). */
export function hostEntry(config: HostConfig): Record<string, unknown> {
  return {
    command: config.command,
    mado: config.mado,
    ...(config.cwd === undefined ? {} : { cwd: config.cwd }),
    ...(config.connectMs === undefined ? {} : { connect_ms: config.connectMs }),
  };
}
