// The user's notification settings (`setup({ notify = … })`), as the Neovim side takes them from Lua
// and keeps them for the daemon (`<jobs folder>/notify.json`, with the mutes of jobs), which tells
// background jobs with Neovim closed. Each field is checked: a wrong one is said and its default kept.
import path from 'node:path';
import { isObj } from '../shared/checks.js';
import { keepAside, readBounded, writeAtomic } from '../shared/files.js';
import { isAgentState } from '../shared/types.js';
import type { AgentState } from '../shared/types.js';
import { DEFAULT_ATTENTION, minutesOf } from './attention.js';
import type { AttentionSettings, Mute } from './attention.js';
import type { OscSetting } from './outer-terminal.js';
import { localJobShort } from '../shared/fleet-id.js';

export interface NotifySettings {
  attention: AttentionSettings;
  desktop: { enabled: boolean; command: string[] | null };
  /** The terminal Neovim runs in: its notification (OSC), its bell, its title. */
  terminal: { osc: OscSetting; bell: boolean; title: boolean };
}

export const DEFAULT_NOTIFY: NotifySettings = {
  attention: DEFAULT_ATTENTION,
  desktop: { enabled: true, command: null },
  terminal: { osc: 'auto', bell: false, title: false },
};

export const NOTIFY_FILE = 'notify.json';
const MAX_FILE = 64 * 1024;
const MAX_MUTES = 1000;
const MAX_COMMAND = 32;
const MAX_WORD = 40;

/** The settings in `v` (Lua's `notify` table, or the file's), and what was wrong in it. */
export function parseNotifySettings(v: unknown, words: unknown = {}): { settings: NotifySettings; problems: string[] } {
  const problems: string[] = [];
  const d = DEFAULT_NOTIFY;
  if (!isObj(v)) return { settings: d, problems: v === undefined ? [] : ['notify must be a table'] };
  const bool = (value: unknown, name: string, dflt: boolean): boolean => {
    if (value === undefined) return dflt;
    if (typeof value === 'boolean') return value;
    problems.push(`notify.${name} must be true or false`);
    return dflt;
  };
  const states: Partial<Record<AgentState, boolean>> = {};
  if (isObj(v.states)) {
    for (const [k, on] of Object.entries(v.states)) {
      if (isAgentState(k) && typeof on === 'boolean') states[k] = on;
      else problems.push(`notify.states.${k.slice(0, 40)}: not a state set to true or false`);
    }
  }
  const stateWords: Record<string, string> = {};
  if (isObj(words))
    for (const [k, w] of Object.entries(words))
      if (typeof w === 'string') stateWords[k.slice(0, MAX_WORD)] = w.slice(0, MAX_WORD);
  let burstMs = d.attention.burstMs;
  if (v.burst_ms !== undefined) {
    if (typeof v.burst_ms === 'number' && v.burst_ms >= 0 && v.burst_ms <= 60_000) burstMs = v.burst_ms;
    else problems.push('notify.burst_ms must be a number of ms from 0 to 60000');
  }
  let quiet: AttentionSettings['quiet'] = null;
  if (v.quiet !== undefined && v.quiet !== null && !(Array.isArray(v.quiet) && v.quiet.length === 0)) {
    const from = isObj(v.quiet) && typeof v.quiet.from === 'string' ? minutesOf(v.quiet.from) : undefined;
    const to = isObj(v.quiet) && typeof v.quiet.to === 'string' ? minutesOf(v.quiet.to) : undefined;
    if (from !== undefined && to !== undefined) quiet = { from, to };
    else problems.push("notify.quiet must be { from = 'HH:MM', to = 'HH:MM' }");
  }
  const desktop = isObj(v.desktop) ? v.desktop : {};
  let command: string[] | null = null;
  if (desktop.command !== undefined && desktop.command !== null) {
    const c = desktop.command;
    if (
      Array.isArray(c) &&
      c.length > 0 &&
      c.length <= MAX_COMMAND &&
      c.every((a): a is string => typeof a === 'string' && a.length <= 4096 && !a.includes('\0'))
    )
      command = [...c];
    else problems.push("notify.desktop.command must be a list of strings, its program first (e.g. { 'notify-send' })");
  }
  const terminal = isObj(v.terminal) ? v.terminal : {};
  let osc: OscSetting = d.terminal.osc;
  if (terminal.osc !== undefined) {
    const o = terminal.osc === 9 || terminal.osc === 777 || terminal.osc === 99 ? String(terminal.osc) : terminal.osc;
    if (o === 'auto' || o === '9' || o === '777' || o === '99' || o === false) osc = o;
    else problems.push("notify.terminal.osc must be 'auto', 9, 777, 99 or false");
  }
  return {
    settings: {
      attention: {
        enabled: bool(v.enabled, 'enabled', d.attention.enabled),
        states: Object.keys(states).length > 0 ? states : d.attention.states,
        words: stateWords,
        burstMs,
        quiet,
      },
      desktop: { enabled: bool(desktop.enabled, 'desktop.enabled', d.desktop.enabled), command },
      terminal: {
        osc,
        bell: bool(terminal.bell, 'terminal.bell', d.terminal.bell),
        title: bool(terminal.title, 'terminal.title', d.terminal.title),
      },
    },
    problems,
  };
}

/** Mutes as kept in the file: an entry's id → `all` or its states. */
type KeptMutes = Record<string, 'all' | AgentState[]>;

/**
 * Keeps the settings and the jobs' mutes for the daemon. Never throws (a full disk costs the daemon its
 * settings, not Neovim anything).
 */
export function writeNotifyFile(
  jobsDir: string,
  settings: NotifySettings,
  mutes: ReadonlyMap<string, Mute>,
  log: (m: string) => void,
): void {
  const kept: KeptMutes = {};
  for (const [id, m] of mutes) if (localJobShort(id) !== undefined) kept[id] = m === 'all' ? 'all' : [...m];
  const a = settings.attention;
  const quiet = a.quiet && { from: hhmm(a.quiet.from), to: hhmm(a.quiet.to) };
  const file = {
    enabled: a.enabled,
    states: a.states,
    words: a.words,
    burst_ms: a.burstMs,
    ...(quiet ? { quiet } : {}),
    desktop: settings.desktop,
    mutes: kept,
  };
  try {
    writeAtomic(path.join(jobsDir, NOTIFY_FILE), JSON.stringify(file));
  } catch (err) {
    log(`cannot keep the notification settings for the daemon: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * The settings and jobs' mutes a Neovim kept (the defaults when none did). A file that is there but
 * cannot be read as settings (cut short, not JSON) is kept aside, and `problem` says so: its reader
 * keeps the settings it read before.
 */
export function readNotifyFile(jobsDir: string): {
  settings: NotifySettings;
  mutes: Map<string, Mute>;
  problem?: string;
} {
  const file = path.join(jobsDir, NOTIFY_FILE);
  const r = readBounded(file, MAX_FILE);
  let v: unknown;
  if (r.ok) {
    try {
      v = JSON.parse(r.text);
    } catch {
      // Left as undefined: said below.
    }
  }
  if (!r.ok ? !r.missing : !isObj(v)) {
    const why = r.ok ? 'not a JSON object (cut short?)' : r.why;
    return {
      settings: DEFAULT_NOTIFY,
      mutes: new Map(),
      problem: `${NOTIFY_FILE} could not be read (${why}): ${keepAside(file)}; the settings read before are kept`,
    };
  }
  const { settings } = parseNotifySettings(isObj(v) ? v : undefined, isObj(v) ? v.words : undefined);
  const mutes = new Map<string, Mute>();
  if (isObj(v) && isObj(v.mutes)) {
    for (const [id, m] of Object.entries(v.mutes).slice(0, MAX_MUTES)) {
      if (localJobShort(id) === undefined) continue;
      if (m === 'all') mutes.set(id, 'all');
      else if (Array.isArray(m)) mutes.set(id, new Set(m.filter(isAgentState)));
    }
  }
  return { settings, mutes };
}

const hhmm = (minutes: number): string =>
  `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
