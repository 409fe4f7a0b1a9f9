// The screen engine: which agent a screen shows and what it is doing, by the rules it is given
// (each agent's, from its module). Pure: no agent is named here, nothing is read but the arguments.
import { completionKey } from './common.js';
import { turnStart } from './prompt.js';
import { choiceMenu, inputBoxRows } from './shapes.js';
import type { AgentId, AgentRules, AgentState, Detection, LineRule, PreviousReading, RuleSet, Screen } from './types.js';
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
const lineDetail = (line: string): string => clip(line.replace(/^[\s│┃]+|[\s│┃]+$/g, ''));

/** The row of the newest marker of `rules` on the screen (the title counts as newest), or -1. */
function markerRow(rules: AgentRules, screen: Screen): number {
  if (rules.titleMarkers.some((m) => m.test(screen.title))) return TITLE_ROW;
  for (let i = screen.lines.length - 1; i >= 0; i--) {
    const line = screen.lines[i]!;
    if (rules.markers.some((m) => m.test(line))) return i;
  }
  return -1;
}

/** True when the shell is back: the cursor (or the last text) sits on an empty shell prompt. */
export function atShellPrompt(screen: Screen): boolean {
  const last = textRows(screen.lines) - 1; // The last row that holds text, or -1.
  if (last < 0) return false;
  const row = screen.cursor !== undefined && screen.cursor >= 0 ? screen.cursor : last;
  if (row !== last) return false;
  return SHELL_PROMPT.test(screen.lines[row]!);
}

/**
 * Which agent runs. Identity is sticky: the previous agent stays while its markers are on the screen
 * or while no agent's are; it changes when the shell prompt is back or another agent shows instead.
 */
export function identify(set: RuleSet, screen: Screen, previous?: PreviousReading): AgentId {
  if (atShellPrompt(screen)) return set.fallback;
  const prev = previous && previous.agent !== set.fallback ? rulesOf(set, previous.agent) : undefined;
  if (prev && markerRow(prev, screen) >= 0) return prev.id;
  let best: AgentId | undefined;
  let bestRow = -1;
  for (const rules of set.agents) {
    const row = markerRow(rules, screen);
    if (row > bestRow) {
      best = rules.id;
      bestRow = row;
    }
  }
  return best ?? prev?.id ?? set.fallback;
}

interface Hit {
  rule: LineRule;
  row: number;
  line: string;
}

/**
 * For each row at or below row `from` (the current turn's start), the first rule that matches it;
 * then the newest event and the lowest hint.
 */
function scan(rules: AgentRules, lines: readonly string[], from = 0, box?: readonly [number, number]): { event?: Hit; hint?: Hit } {
  let event: Hit | undefined;
  let hint: Hit | undefined;
  for (let row = lines.length - 1; row >= Math.max(0, from) && !event; row--) {
    const line = lines[row]!;
    // Inside the input box stands a draft: it tells no event (a pasted spinner, a hint's words), only
    // the box's own chrome (its placeholder, its prompt glyph) as a hint.
    const inBox = box !== undefined && row >= box[0] && row <= box[1];
    const rule = rules.lines.find((r) => (!inBox || r.hint) && r.test.test(line));
    if (!rule) continue;
    if (rule.hint) hint ??= { rule, row, line };
    else event = { rule, row, line };
  }
  return { event, hint };
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
  if (top < 0) return 0;
  let row = top - 1;
  while (row >= 0 && lines[row]!.trim() === '') row--;
  while (row > 0 && lines[row - 1]!.trim() !== '') row--;
  return Math.max(0, row);
}

/** How far above a chrome line the line that tells its state is looked for. */
const CHROME_REACH = 12;

/** What a hit says for a person: its line; for chrome, the nearest line at or above it that tells the same state (CHROME_REACH rows at most). */
function detailOf(rules: AgentRules, lines: readonly string[], hit: Hit, from: number): string {
  if (!hit.rule.chrome) return hit.rule.detail ?? lineDetail(hit.line);
  for (let row = hit.row; row >= Math.max(0, from) && row > hit.row - CHROME_REACH; row--) {
    const line = lines[row]!;
    if (rules.lines.some((r) => !r.chrome && !r.hint && r.state === hit.rule.state && r.test.test(line))) return lineDetail(line);
  }
  return hit.rule.detail ?? lineDetail(hit.line);
}

function fromHit(agent: AgentId, hit: Hit, detail: string): Detection {
  const detection: Detection = {
    agent,
    state: hit.rule.state,
    source: 'pty-scrape',
    detail,
  };
  if (hit.rule.completion) detection.completion = completionKey(hit.line);
  return detection;
}

/**
 * Reads one screen. The newest thing on it decides: an approval prompt or an interrupt below an old
 * completion line wins; the title (which tells what happens now) outranks lines that tell what
 * happened; footers and placeholders decide only when nothing else does. `as` names the agent
 * (its rules read the screen), else the screen tells which agent runs.
 */
export function detect(set: RuleSet, input: Screen, previous?: PreviousReading, as?: AgentId): Detection {
  const screen = boundScreen(input);
  // Told which agent runs (`mado detect --agent`), its rules read the screen whatever it shows.
  const agent = as ?? identify(set, screen, previous);
  const rules = agent === set.fallback ? undefined : rulesOf(set, agent);
  if (!rules) return { agent: set.fallback, state: 'idle', source: 'pty-scrape', detail: lineDetail(screen.title) };

  // Only the current turn counts: what stands above its prompt is an earlier turn's.
  const from = rules.inputBox ? lastBlock(rules.inputBox, screen.lines) : turnStart(rules.prompt, screen.lines);
  const lastText = textRows(screen.lines) - 1;
  const box = inputBoxRows(screen.lines, lastText);
  const { event, hint } = scan(rules, screen.lines, from, box);
  // A question over a choice menu in the current turn waits for the user, whatever its words.
  const menu = choiceMenu(screen.lines, from, lastText, box);
  const hitDetection = (h: Hit): Detection => fromHit(agent, h, detailOf(rules, screen.lines, h, from));
  const title = rules.titles.find((t) => t.test.test(screen.title));
  const titleDetection = (state: AgentState, detail?: string): Detection => ({
    agent,
    state,
    source: 'pty-scrape',
    detail: detail ?? lineDetail(screen.title),
  });

  if (event?.rule.state === 'waiting') return hitDetection(event);
  if (menu && (!event || menu.row >= event.row)) return { agent, state: 'waiting', source: 'pty-scrape', detail: lineDetail(menu.line) };
  if (title && (title.state === 'waiting' || title.state === 'working')) {
    if (event?.rule.state === title.state) return hitDetection(event);
    // The end of the current turn (its completion line, an interrupt, an error) is news that a title
    // lagging behind lacks: Codex 0.171 leaves a spinner in its title for seconds after a turn ends.
    if (title.state === 'working' && (event?.rule.completion || event?.rule.state === 'failed')) return hitDetection(event);
    return titleDetection(title.state, title.detail);
  }
  if (event) return hitDetection(event);
  if (hint) return hitDetection(hint);
  if (title) return titleDetection(title.state, title.detail);
  const keep = previous && previous.agent === agent && previous.state !== 'exited' ? previous.state : 'idle';
  return { agent, state: keep, source: 'pty-scrape', detail: '', kept: true };
}
