// The screen engine: which agent a screen shows and what it is doing, by the rules it is given
// (each agent's, from its module). Pure: no agent is named here, nothing is read but the arguments.
import { completionKey } from './common.js';
import { turnStart } from './prompt.js';
import { choiceMenu, inputBoxRows, unframed } from './shapes.js';
import type { MenuHit } from './shapes.js';
import type { AgentId, AgentRules, Detection, LineRule, PreviousReading, RuleSet, Screen, TitleRule } from './types.js';
import { clip, textRows } from '../shared/text.js';

export * from './types.js';
export { COMPLETION, completionKey } from './common.js';

const rulesOf = (set: RuleSet, id: AgentId): AgentRules | undefined => set.agents.find((r) => r.id === id);

/** A row above every screen row: the title speaks of now. */
const TITLE_ROW = Number.POSITIVE_INFINITY;

/** An interactive shell waiting for a command: the last line ends in `$`, `#` or `%`. */
const SHELL_PROMPT = /[$#%]\s?$/;

/**
 * What a screen reading looks at, at most: the last 150 rows, the first 400 columns of each (an agent
 * draws what tells its state at the start of a row), and the start of the title.
 */
export const MAX_ROWS = 150;
export const MAX_LINE = 400;
export const MAX_TITLE = 512;

/**
 * The screen cut to the bounds above (the last rows, the start of each row and of the title), so
 * that every rule runs on bounded input whatever a program prints: a rule's cost then has a ceiling.
 */
export function boundScreen(screen: Screen): Screen {
  const { lines, title } = screen;
  const fits = lines.length <= MAX_ROWS && title.length <= MAX_TITLE && lines.every((l) => l.length <= MAX_LINE);
  if (fits) return screen;
  const cut = lines.length - Math.min(lines.length, MAX_ROWS);
  return {
    lines: lines.slice(cut).map((l) => (l.length > MAX_LINE ? l.slice(0, MAX_LINE) : l)),
    title: title.slice(0, MAX_TITLE),
    cursor: screen.cursor === undefined ? undefined : screen.cursor - cut,
  };
}

/** A line that told a state, as its detail: without the box it is drawn in, on one line, bounded. */
const lineDetail = (line: string): string => clip(unframed(line));

/** The newest marker of `rules` on the screen (the title counts as newest): its row and its pattern. */
function markerOf(rules: AgentRules, screen: Screen): { row: number; marker: string } | undefined {
  const inTitle = rules.titleMarkers.find((m) => m.test(screen.title));
  if (inTitle) return { row: TITLE_ROW, marker: inTitle.source };
  for (let i = screen.lines.length - 1; i >= 0; i--) {
    const line = screen.lines[i]!;
    const m = rules.markers.find((p) => p.test(line));
    if (m) return { row: i, marker: m.source };
  }
  return undefined;
}

/** The row of the shell prompt the cursor (or the last text) sits on, or -1 when the shell is not back. */
function shellPromptRow(screen: Screen): number {
  const last = textRows(screen.lines) - 1; // The last row that holds text, or -1.
  if (last < 0) return -1;
  const row = screen.cursor !== undefined && screen.cursor >= 0 ? screen.cursor : last;
  if (row !== last) return -1;
  return SHELL_PROMPT.test(screen.lines[row]!) ? row : -1;
}

/** True when the shell is back: the cursor (or the last text) sits on an empty shell prompt. */
export function atShellPrompt(screen: Screen): boolean {
  return shellPromptRow(screen) >= 0;
}

/**
 * How a screen's agent was told: named by the caller (`told`), the shell prompt back, one of its
 * markers on a row or in the title, the agent read before with no agent's marker on the screen
 * (`previous`), or nothing (`none`: the fallback).
 */
export interface Identity {
  agent: AgentId;
  by: 'told' | 'shell-prompt' | 'title-marker' | 'marker' | 'previous' | 'none';
  /** The marker's row, or the shell prompt's. */
  row?: number;
  /** The marker's pattern. */
  marker?: string;
}

/** Which agent runs, and how that was told: see identify. */
export function identity(set: RuleSet, screen: Screen, previous?: PreviousReading): Identity {
  const shell = shellPromptRow(screen);
  if (shell >= 0) return { agent: set.fallback, by: 'shell-prompt', row: shell };
  const found = (id: AgentId, m: { row: number; marker: string }): Identity =>
    m.row === TITLE_ROW
      ? { agent: id, by: 'title-marker', marker: m.marker }
      : { agent: id, by: 'marker', row: m.row, marker: m.marker };
  const prev = previous && previous.agent !== set.fallback ? rulesOf(set, previous.agent) : undefined;
  const prevMarker = prev && markerOf(prev, screen);
  if (prev && prevMarker) return found(prev.id, prevMarker);
  let best: Identity | undefined;
  let bestRow = -1;
  for (const rules of set.agents) {
    const m = markerOf(rules, screen);
    if (m && m.row > bestRow) {
      best = found(rules.id, m);
      bestRow = m.row;
    }
  }
  if (best) return best;
  return prev ? { agent: prev.id, by: 'previous' } : { agent: set.fallback, by: 'none' };
}

/**
 * Which agent runs. Identity is sticky: the previous agent stays while its markers are on the screen
 * or while no agent's are; it changes when the shell prompt is back or another agent shows instead.
 */
export function identify(set: RuleSet, screen: Screen, previous?: PreviousReading): AgentId {
  return identity(set, screen, previous).agent;
}

interface Hit {
  rule: LineRule;
  row: number;
  line: string;
}

/** How far above a busy line a question that holds the agent (LineRule.overWork) is looked for. */
const OVER_WORK_REACH = 8;

/**
 * For each row at or below row `from` (the current turn's start), the first rule that matches it;
 * then the newest event and the lowest hint.
 */
function scan(
  rules: AgentRules,
  lines: readonly string[],
  from = 0,
  box?: readonly [number, number],
  latest?: number,
): { event?: Hit; hint?: Hit } {
  let event: Hit | undefined;
  let hint: Hit | undefined;
  // Inside the input box stands a draft: it tells no event (a pasted spinner, a hint's words), only
  // the box's own chrome (its placeholder, its prompt glyph) as a hint.
  const inBox = (row: number): boolean => box !== undefined && row >= box[0] && row <= box[1];
  const told = (rule: LineRule, row: number): boolean =>
    (!inBox(row) || rule.hint === true) && !leftBehind(rule, row, latest);
  // A screen drawn over the agent decides, wherever its line stands (see LineRule.overlay).
  const overlays = rules.lines.filter((r) => r.overlay === true);
  for (let row = lines.length - 1; overlays.length > 0 && row >= Math.max(0, from); row--) {
    const line = lines[row]!;
    const rule = inBox(row) ? undefined : overlays.find((r) => r.test.test(line));
    if (rule) return { event: { rule, row, line } };
  }
  for (let row = lines.length - 1; row >= Math.max(0, from) && !event; row--) {
    const line = lines[row]!;
    const rule = rules.lines.find((r) => told(r, row) && r.test.test(line));
    if (!rule) continue;
    if (rule.hint) hint ??= { rule, row, line };
    else event = { rule, row, line };
  }
  // A busy line under a question that holds the agent (a dialog over a spinner still turning) is
  // that question's turn: the question decides.
  if (event?.rule.state === 'working') {
    const top = Math.max(0, from, event.row - OVER_WORK_REACH);
    for (let row = event.row - 1; row >= top; row--) {
      const line = lines[row]!;
      const rule = rules.lines.find((r) => r.overWork === true && r.test.test(line));
      if (rule) return { event: { rule, row, line }, hint };
    }
  }
  return { event, hint };
}

/**
 * A working line above the latest block over the input box (`latest`: its first row, where the agent's
 * work shows: AgentRules.workInLatestBlock) is a frame left behind: it tells nothing.
 */
export function leftBehind(rule: LineRule, row: number, latest: number | undefined): boolean {
  return latest !== undefined && row < latest && rule.state === 'working';
}

/** How far above the screen's bottom an input box's borders are looked for. */
const INPUT_BOX_REACH = 12;

/**
 * The first row of the last block of lines above an input box (its upper border: the higher of the
 * two lowest borders, when they stand within INPUT_BOX_REACH rows), or 0 without a box.
 */
export function lastBlock(border: RegExp, lines: readonly string[]): number {
  const bottom = lines.length - 1;
  let top = -1;
  for (let row = bottom; row >= 0 && row > bottom - INPUT_BOX_REACH; row--) {
    if (!border.test(lines[row]!)) continue;
    top = row;
    // The box's other border above it, if near.
    for (let up = row - 1; up >= 0 && up > row - INPUT_BOX_REACH; up--) {
      if (border.test(lines[up]!)) {
        top = up;
        break;
      }
    }
    break;
  }
  return top < 0 ? 0 : blockAbove(lines, top);
}

/** The first row of the last block of lines (back to a blank line) above row `top`. */
function blockAbove(lines: readonly string[], top: number): number {
  let row = top - 1;
  while (row >= 0 && lines[row]!.trim() === '') row--;
  while (row > 0 && lines[row - 1]!.trim() !== '') row--;
  return Math.max(0, row);
}

/** How far above a chrome line the line that tells its state is looked for. */
const CHROME_REACH = 12;

/**
 * What a hit says for a person: its line; for chrome, the nearest line at or above it that tells the same
 * state (CHROME_REACH rows at most).
 */
function detailOf(rules: AgentRules, lines: readonly string[], hit: Hit, from: number): string {
  if (!hit.rule.chrome) return hit.rule.detail ?? lineDetail(hit.line);
  for (let row = hit.row; row >= Math.max(0, from) && row > hit.row - CHROME_REACH; row--) {
    const line = lines[row]!;
    if (rules.lines.some((r) => !r.chrome && !r.hint && r.state === hit.rule.state && r.test.test(line)))
      return lineDetail(line);
  }
  return hit.rule.detail ?? lineDetail(hit.line);
}

function fromHit(agent: AgentId, hit: Hit, detail: string): Detection {
  const detection: Detection = {
    agent,
    state: hit.rule.state,
    source: 'pty-scrape',
    detail,
    rule: hit.rule.name,
  };
  if (hit.rule.completion) detection.completion = completionKey(hit.line);
  return detection;
}

/**
 * What decided a reading: a rule on a row, a shape, a title rule, the state read before (`kept`), or the
 * fallback agent.
 */
export interface Decision {
  by: 'rule' | 'shape' | 'title' | 'kept' | 'fallback';
  /** The rule's or the shape's name. */
  rule?: string;
  /** The row it matched on (none for the title). */
  row?: number;
  line?: string;
  /** The file of a user's rule. */
  origin?: string;
}

/** A screen's reading and what led to it: who runs, what decided, where the current turn and the input box are. */
export interface Reading {
  detection: Detection;
  identity: Identity;
  decided: Decision;
  /** The bounded screen the rules read. */
  screen: Screen;
  /** The first row of the current turn, the input box's rows. */
  from: number;
  box?: readonly [number, number];
  /** Where its work is read from (AgentRules.workInLatestBlock): the latest block over the input box. */
  latest?: number;
  /** A question over a choice menu in the current turn, whether or not it decided. */
  menu?: MenuHit;
}

/**
 * Reads one screen. The newest thing on it decides: an approval prompt or an interrupt below an old
 * completion line wins; the title (which tells what happens now) outranks lines that tell what
 * happened; footers and placeholders decide only when nothing else does. `as` names the agent
 * (its rules read the screen), else the screen tells which agent runs.
 */
export function detect(set: RuleSet, input: Screen, previous?: PreviousReading, as?: AgentId): Detection {
  return reading(set, input, previous, as).detection;
}

/** Reads one screen as detect does, and says why (what `--explain` prints). */
export function reading(set: RuleSet, input: Screen, previous?: PreviousReading, as?: AgentId): Reading {
  const screen = boundScreen(input);
  // Told which agent runs (`mado detect --agent`), its rules read the screen whatever it shows.
  const who: Identity = as !== undefined ? { agent: as, by: 'told' } : identity(set, screen, previous);
  const agent = who.agent;
  const rules = agent === set.fallback ? undefined : rulesOf(set, agent);
  if (!rules) {
    return {
      detection: { agent: set.fallback, state: 'idle', source: 'pty-scrape', detail: lineDetail(screen.title) },
      identity: who,
      decided: { by: 'fallback' },
      screen,
      from: 0,
    };
  }

  // Only the current turn counts: what stands above its prompt is an earlier turn's.
  const lastText = textRows(screen.lines) - 1;
  const box = inputBoxRows(screen.lines, lastText);
  // (A draft in the input box, however many lines, is no prompt submitted.)
  const from = rules.inputBox
    ? lastBlock(rules.inputBox, screen.lines)
    : turnStart(rules.prompt, screen.lines, box?.[0]);
  const latest = rules.workInLatestBlock && box ? blockAbove(screen.lines, box[0] - 1) : undefined;
  const { event, hint } = scan(rules, screen.lines, from, box, latest);
  // A question over a choice menu in the current turn waits for the user, whatever its words.
  const menu = choiceMenu(screen.lines, from, lastText, box);
  const title = rules.titles.find((t) => t.test.test(screen.title));
  const done = (detection: Detection, decided: Decision): Reading => ({
    detection,
    identity: who,
    decided,
    screen,
    from,
    box,
    ...(latest !== undefined && { latest }),
    menu,
  });
  const byHit = (h: Hit): Reading =>
    done(fromHit(agent, h, detailOf(rules, screen.lines, h, from)), {
      by: 'rule',
      rule: h.rule.name,
      row: h.row,
      line: h.line,
      ...(h.rule.origin !== undefined && { origin: h.rule.origin }),
    });
  const byTitle = (t: TitleRule): Reading =>
    done(
      { agent, state: t.state, source: 'pty-scrape', detail: t.detail ?? lineDetail(screen.title), rule: t.name },
      { by: 'title', rule: t.name, line: screen.title },
    );

  if (event?.rule.overlay || event?.rule.state === 'waiting') return byHit(event);
  if (menu && (!event || menu.row >= event.row)) {
    return done(
      { agent, state: 'waiting', source: 'pty-scrape', detail: lineDetail(menu.line), rule: menu.shape },
      { by: 'shape', rule: menu.shape, row: menu.row, line: menu.line },
    );
  }
  if (title && (title.state === 'waiting' || title.state === 'working')) {
    if (event?.rule.state === title.state) return byHit(event);
    // The end of the current turn (its completion line, an interrupt, an error) is news that a title
    // lagging behind lacks: Codex 0.171 leaves a spinner in its title for seconds after a turn ends.
    if (title.state === 'working' && (event?.rule.completion || event?.rule.state === 'failed')) return byHit(event);
    return byTitle(title);
  }
  if (event) return byHit(event);
  if (hint) return byHit(hint);
  if (title) return byTitle(title);
  const keep = previous && previous.agent === agent && previous.state !== 'exited' ? previous.state : 'idle';
  return done({ agent, state: keep, source: 'pty-scrape', detail: '', kept: true }, { by: 'kept' });
}
