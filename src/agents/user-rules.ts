// Screen rules a user adds or overrides, one file per agent: `$XDG_CONFIG_HOME/madohub/rules/<agent>.json`.
// Each file is validated as hostile input (bounded, a bad entry refused with why, not run), and
// read again when it changes. See |madohub-rules|.
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { patternShape } from '../detect/linear.js';
import type { AgentRules, LineRule, Matcher, RuleSet } from '../detect/types.js';
import { isObj } from '../shared/checks.js';
import { readConfigFile } from '../shared/files.js';
import type { AgentId, AgentState } from '../shared/types.js';
import { noControl, printable } from '../shared/text.js';
import { configHome } from '../shared/xdg.js';
import { AGENT_MODULES } from './registry.js';

/** The folder of the user's rule files. */
export function rulesDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configHome(env), 'madohub', 'rules');
}

/** Bounds: a file's size, the files read, a file's entries (all its lists), a text's length. */
export const MAX_RULES_FILE = 64 * 1024;
const MAX_FILES = 32;
const MAX_ENTRIES = 32;
/** The most patterns with a free repeat in a file (each costs a line's length on every row it tries). */
const MAX_FREE = 2;
const MAX_TEXT = 200;
const NAME = /^[a-z0-9][a-z0-9.-]{0,39}$/;

/** The keys of a rule file: a state's words, the completion shape, identity markers, built-in rules turned off. */
const STATE_KEYS = {
  working: 'working',
  waiting: 'waiting',
  idle: 'idle',
  failed: 'failed',
  completion: 'stopped',
} as const satisfies Record<string, AgentState>;
type StateKey = keyof typeof STATE_KEYS;
const KEYS = new Set<string>([...Object.keys(STATE_KEYS), 'markers', 'disable', '$schema', 'comment']);

/** What one agent's file adds: rules tried before the built-in ones, markers, built-in rules turned off. */
export interface RulesPatch {
  agent: AgentId;
  file: string;
  lines: LineRule[];
  markers: RegExp[];
  disable: string[];
}

/** One file as :checkhealth lists it: how many rules it gave, and what was refused with why. */
export interface RulesFileReport {
  file: string;
  agent?: AgentId;
  rules: number;
  errors: string[];
}

/** Every file of the folder, read once. */
export interface UserRules {
  dir: string;
  patches: RulesPatch[];
  files: RulesFileReport[];
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Texts found in a line in this order, each after the one before (with `ignoreCase`, in any case):
 * linear, and no copy of the line (each text is a sticky-free global search from where the last ended).
 */
function inOrder(texts: readonly string[], ignoreCase: boolean): Matcher {
  if (!ignoreCase && texts.length === 1) {
    const text = texts[0]!;
    return { test: (line: string): boolean => line.includes(text) };
  }
  const searches = texts.map((t) => new RegExp(escapeRegExp(t), ignoreCase ? 'giu' : 'gu'));
  return {
    test: (line: string): boolean => {
      let at = 0;
      for (const re of searches) {
        re.lastIndex = at;
        if (!re.test(line)) return false;
        at = re.lastIndex;
      }
      return true;
    },
  };
}

/** What every line an entry matches matches too: its pattern, its text, the first of its words. */
export interface Gate {
  source: string;
  ignoreCase: boolean;
}

/**
 * One test a line, for a file's rules together: whether any of them may match it (the alternation of
 * their gates, one per case), remembered for the line, which the engine asks every rule of in turn.
 * A line that passes is tested by each rule; none passes (most lines) costs one scan, not one a rule.
 */
export function lineGate(
  gates: readonly Gate[],
  run: (test: Matcher, line: string) => boolean = (test, line) => test.test(line),
): (line: string) => boolean {
  const alternation = (ignoreCase: boolean): RegExp | null => {
    const of = gates.filter((g) => g.ignoreCase === ignoreCase);
    return of.length === 0 ? null : new RegExp(of.map((g) => `(?:${g.source})`).join('|'), ignoreCase ? 'iu' : 'u');
  };
  let exact: RegExp | null;
  let folded: RegExp | null;
  try {
    exact = alternation(false);
    folded = alternation(true);
  } catch {
    // Patterns that cannot stand together (the same group name twice): each rule tests alone.
    return () => true;
  }
  let last: string | undefined;
  let passes = false;
  return (line) => {
    if (line !== last) {
      last = line;
      passes = (exact !== null && run(exact, line)) || (folded !== null && run(folded, line));
    }
    return passes;
  };
}

interface Entry {
  /** A pattern with a repeat that costs a line's length. */
  free?: true;
  test: Matcher;
  gate: Gate;
  /** As a regular expression, for a marker (none for `words`). */
  regexp?: RegExp;
  name?: string;
  hint: boolean;
}

const textProblem = (t: unknown): string | null =>
  typeof t !== 'string'
    ? 'a text is a string'
    : t.trim() === ''
      ? 'an empty text matches every line'
      : t.length > MAX_TEXT
        ? `a text longer than ${MAX_TEXT} characters`
        : null;

/** One entry of a list: a text, or `{ text | words | pattern, name?, hint?, ignoreCase? }`; or why it is refused. */
function entryOf(v: unknown): Entry | string {
  const raw = typeof v === 'string' ? { text: v } : v;
  if (!isObj(raw)) return 'an entry is a text or an object with "text", "words" or "pattern"';
  for (const k of Object.keys(raw))
    if (!['text', 'words', 'pattern', 'name', 'hint', 'ignoreCase'].includes(k))
      return `unknown field "${printable(k, 60)}"`;
  const ignoreCase = raw.ignoreCase === true;
  if (raw.ignoreCase !== undefined && typeof raw.ignoreCase !== 'boolean') return '"ignoreCase" is true or false';
  if (raw.hint !== undefined && typeof raw.hint !== 'boolean') return '"hint" is true or false';
  if (raw.name !== undefined && (typeof raw.name !== 'string' || !NAME.test(raw.name)))
    return '"name" is lower-case letters, digits, . and - (40 at most)';
  const base = { hint: raw.hint === true, ...(typeof raw.name === 'string' && { name: raw.name }) };
  const given = ['text', 'words', 'pattern'].filter((k) => raw[k] !== undefined);
  if (given.length !== 1) return 'an entry has one of "text", "words" or "pattern"';
  if (raw.text !== undefined) {
    const problem = textProblem(raw.text);
    if (problem) return problem;
    const text = raw.text as string;
    return {
      ...base,
      test: inOrder([text], ignoreCase),
      regexp: new RegExp(escapeRegExp(text), ignoreCase ? 'iu' : 'u'),
      gate: { source: escapeRegExp(text), ignoreCase },
    };
  }
  if (raw.words !== undefined) {
    if (!Array.isArray(raw.words) || raw.words.length < 2 || raw.words.length > 8)
      return '"words" is a list of 2 to 8 texts, found in that order';
    const problem = raw.words.map(textProblem).find((p) => p !== null);
    if (problem) return `"words": ${problem}`;
    const words = raw.words as string[];
    return { ...base, test: inOrder(words, ignoreCase), gate: { source: escapeRegExp(words[0]!), ignoreCase } };
  }
  if (typeof raw.pattern === 'string') {
    const flags = ignoreCase ? 'i' : '';
    const shape = patternShape(raw.pattern, flags);
    if (typeof shape === 'string') return `pattern /${printable(raw.pattern, 60)}/: ${shape}`;
    const regexp = new RegExp(raw.pattern, `${flags}u`);
    return {
      ...base,
      test: regexp,
      regexp,
      gate: { source: raw.pattern, ignoreCase },
      ...(shape.free > 0 && { free: true as const }),
    };
  }
  return '"pattern" is a string';
}

/** Reads one agent's rule file's text; what it adds and what it refused. */
export function parseRulesFile(
  agent: AgentId,
  file: string,
  text: string,
  clock: () => number = () => performance.now(),
): { patch: RulesPatch; errors: string[] } {
  const read = readRulesFile(agent, file, text);
  // What a message quotes of the file (a JSON parser's excerpt, an engine's reason) is printed: no control
  // character passes.
  const errors = read.errors.map(noControl);
  // Bounded by time as well as by shape: a file whose rules spend more than a frame a second matching is
  // turned off, said in its errors.
  const budget = new MatchBudget(clock, (ms) =>
    errors.push(
      `turned off: its rules took ${Math.round(ms)} ms of matching within a second (${BUDGET_MS} ms at most); save the file again to turn them on`,
    ),
  );
  // The file's rules are asked in turn of each line: one gate for them all first (timed once a line).
  const gate = lineGate(read.gates, (test, line) => budget.test(test, line));
  const lines = read.patch.lines.map((rule) => {
    const own = rule.test;
    return { ...rule, test: { test: (line: string): boolean => !budget.off && gate(line) && budget.test(own, line) } };
  });
  return { patch: { ...read.patch, lines }, errors };
}

/** What a file's rules may spend matching within a second (BUDGET_WINDOW_MS), in ms: about a frame. */
export const BUDGET_MS = 16;
const BUDGET_WINDOW_MS = 1000;

/** The time a file's rules spend matching, counted by window: past BUDGET_MS in one, they match nothing more. */
class MatchBudget {
  private spent = 0;
  private since = -Infinity;
  /** Past its budget: the file's rules match nothing. */
  off = false;

  constructor(
    private readonly clock: () => number,
    private readonly turnedOff: (ms: number) => void,
  ) {}

  test(matcher: Matcher, line: string): boolean {
    if (this.off) return false;
    const start = this.clock();
    const hit = matcher.test(line);
    const end = this.clock();
    if (end - this.since > BUDGET_WINDOW_MS) {
      this.since = start;
      this.spent = 0;
    }
    this.spent += end - start;
    if (this.spent > BUDGET_MS) {
      this.off = true;
      this.turnedOff(this.spent);
    }
    return hit;
  }
}

function readRulesFile(
  agent: AgentId,
  file: string,
  text: string,
): { patch: RulesPatch; errors: string[]; gates: Gate[] } {
  const patch: RulesPatch = { agent, file, lines: [], markers: [], disable: [] };
  const errors: string[] = [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return {
      patch,
      errors: [
        `not JSON (${err instanceof Error ? err.message.slice(0, 100) : 'a syntax error'}): nothing in it is used`,
      ],
      gates: [],
    };
  }
  if (!isObj(value)) return { patch, errors: ['not a JSON object: nothing in it is used'], gates: [] };
  const names = new Set<string>();
  const gates: Gate[] = [];
  let entries = 0;
  let free = 0;
  for (const [key, list] of Object.entries(value)) {
    if (!KEYS.has(key)) {
      errors.push(
        `unknown key "${printable(key, 60)}" (known: ${[...KEYS].filter((k) => !k.startsWith('$') && k !== 'comment').join(', ')})`,
      );
      continue;
    }
    if (key === '$schema' || key === 'comment') continue;
    if (!Array.isArray(list)) {
      errors.push(`"${key}" is a list`);
      continue;
    }
    const room = MAX_ENTRIES - entries;
    if (list.length > room)
      errors.push(`"${key}": ${list.length} entries, ${room} used (${MAX_ENTRIES} in a file at most)`);
    entries += Math.min(list.length, room);
    list.slice(0, Math.max(0, room)).forEach((v: unknown, i: number) => {
      const where = `"${key}"[${i + 1}]`;
      if (key === 'disable') {
        if (typeof v !== 'string' || !/^(?:[a-z0-9][a-z0-9.-]*\/)?[a-z0-9][a-z0-9.-]*$/.test(v))
          errors.push(`${where}: a built-in rule's name, as --explain shows it`);
        else patch.disable.push(v);
        return;
      }
      const entry = entryOf(v);
      if (typeof entry === 'string') {
        errors.push(`${where}: ${entry}; refused`);
        return;
      }
      if (entry.free && ++free > MAX_FREE) {
        errors.push(
          `${where}: more than ${MAX_FREE} patterns in a file with a repeat that can backtrack (they cost every row); refused`,
        );
        return;
      }
      if (key === 'markers') {
        if (entry.regexp) patch.markers.push(entry.regexp);
        else errors.push(`${where}: a marker is a text or a pattern; refused`);
        return;
      }
      const state = STATE_KEYS[key as StateKey];
      const name = `user/${agent}/${entry.name ?? `${key}-${i + 1}`}`;
      if (names.has(name)) {
        errors.push(`${where}: the name ${name} is taken; refused`);
        return;
      }
      names.add(name);
      gates.push(entry.gate);
      patch.lines.push({
        name,
        state,
        test: entry.test,
        origin: file,
        ...(entry.hint && { hint: true }),
        ...(key === 'completion' && { completion: true }),
      });
    });
  }
  return { patch, errors, gates };
}

const AGENT_IDS = new Set<string>(AGENT_MODULES.filter((a) => !a.fallback).map((a) => a.id));

/** Every `<agent>.json` of the folder (MAX_FILES at most), read bounded. A missing folder is no rules. */
export function loadUserRules(dir: string): UserRules {
  const out: UserRules = { dir, patches: [], files: [] };
  const names = ruleFileNames(dir);
  if (!names) return out;
  for (const name of names.slice(0, MAX_FILES)) {
    const file = path.join(dir, name);
    const id = name.slice(0, -'.json'.length);
    if (!AGENT_IDS.has(id)) {
      out.files.push({
        file,
        rules: 0,
        errors: [
          `no agent is named ${printable(id, 60)} (the file's name is the agent's: ${[...AGENT_IDS].join(', ')})`,
        ],
      });
      continue;
    }
    const r = readConfigFile(file, MAX_RULES_FILE);
    if (!r.ok) {
      out.files.push({ file, agent: id, rules: 0, errors: [`cannot read it: ${r.why}`] });
      continue;
    }
    const { patch, errors } = parseRulesFile(id, file, r.text);
    out.patches.push(patch);
    out.files.push({ file, agent: id, rules: patch.lines.length + patch.markers.length, errors });
  }
  if (names.length > MAX_FILES)
    out.files.push({ file: dir, rules: 0, errors: [`${names.length} files: the first ${MAX_FILES} are read`] });
  return out;
}

/**
 * The built-in rules with the user's: theirs first (they win a line), built-in ones they turned off
 * left out. A name in "disable" that no rule has is added to its file's errors.
 */
export function withUserRules(base: RuleSet, user: UserRules): RuleSet {
  const refuse = (file: string, why: string): void => {
    user.files.find((f) => f.file === file)?.errors.push(why);
  };
  const agents = base.agents.map((rules): AgentRules => {
    const patches = user.patches.filter((p) => p.agent === rules.id);
    if (patches.length === 0) return rules;
    const off = new Set<string>();
    for (const p of patches) {
      for (const n of p.disable) {
        const full = n.includes('/') ? n : `${rules.id}/${n}`;
        if (![...rules.lines, ...rules.titles].some((r) => r.name === full))
          refuse(p.file, `"disable": no rule of ${rules.id} is named ${full} (mado detect --explain names them)`);
        else off.add(full);
      }
    }
    const markers = patches.flatMap((p) => p.markers);
    return {
      ...rules,
      markers: [...markers, ...rules.markers],
      titleMarkers: [...markers, ...rules.titleMarkers],
      lines: [...patches.flatMap((p) => p.lines), ...rules.lines.filter((r) => !off.has(r.name))],
      titles: rules.titles.filter((r) => !off.has(r.name)),
    };
  });
  return { ...base, agents };
}

/** How often the folder is looked at again for a change, at most. */
export const RECHECK_MS = 1000;

/**
 * The user's rules as they are now: read at first use, and again when a file of the folder changed
 * (looked at no more than once every RECHECK_MS, when a screen is read: no timer, no watcher).
 * `onLoad` hears each new reading (to tell its errors once).
 */
export class UserRulesSource {
  private rules: UserRules | undefined;
  private stamp = '';
  private checkedAt = -Infinity;

  constructor(
    readonly dir: string,
    private readonly onLoad: (rules: UserRules) => void = () => {},
    private readonly clock: () => number = Date.now,
  ) {}

  current(): UserRules {
    const now = this.clock();
    if (this.rules && now - this.checkedAt < RECHECK_MS) return this.rules;
    this.checkedAt = now;
    const stamp = folderStamp(this.dir);
    if (!this.rules || stamp !== this.stamp) {
      this.stamp = stamp;
      this.rules = loadUserRules(this.dir);
      this.onLoad(this.rules);
    }
    return this.rules;
  }
}

/**
 * The `.json` files of the rules folder, the agents' own first (stray files never crowd one out of
 * the MAX_FILES read), each part sorted; undefined when it cannot be listed (missing).
 */
function ruleFileNames(dir: string): string[] | undefined {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.json'))
      .sort();
  } catch {
    return undefined;
  }
  const own = (n: string): boolean => AGENT_IDS.has(n.slice(0, -'.json'.length));
  return [...names.filter(own), ...names.filter((n) => !own(n))];
}

/** What changes when a rule file is added, removed or written: each file's name, size, time and inode. */
function folderStamp(dir: string): string {
  const names = ruleFileNames(dir);
  if (!names) return 'none';
  return names
    .slice(0, MAX_FILES)
    .map((n) => {
      try {
        const st = statSync(path.join(dir, n));
        return `${n}:${st.size}:${st.mtimeMs}:${st.ino}`;
      } catch {
        return `${n}:gone`;
      }
    })
    .join('|');
}
