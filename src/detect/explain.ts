// Why a screen reads as it does (`mado detect --explain`, `:MadoExplain`): the agent and how it was
// told, the rule or shape that decided and its line, the current turn and the input box, and every
// rule that matched a line but was passed over, with why. Pure, like the engine it explains.
import { leftBehind, reading } from './index.js';
import type { Decision, Identity, Reading } from './index.js';
import type { AgentId, AgentState, Detection, PreviousReading, RuleSet, Screen } from './types.js';
import { clip, noControl } from '../shared/text.js';

/** A rule that matched a line (or the title) and did not decide, with why. */
export interface PassedOver {
  rule: string;
  state: AgentState;
  /** Its row, from 1 (none: the title). */
  row?: number;
  line: string;
  why: string;
}

/** A reading, explained; rows count from 1 as a person reads them. */
export interface Explanation {
  agent: AgentId;
  state: AgentState;
  source: Detection['source'];
  detail: string;
  rule?: string;
  identity: Identity;
  decided: Decision;
  /** The current turn's first row; the input box's rows. */
  turn: { from: number; box?: readonly [number, number] };
  passed: PassedOver[];
}

/** The most passed-over rules an explanation lists (newest first). */
export const MAX_PASSED = 24;

/** A screen's text as an explanation shows it: control characters out, one line, bounded. */
const shown = (text: string): string => clip(noControl(text));

/** Reads one screen as detect does and says why. */
export function explain(set: RuleSet, screen: Screen, previous?: PreviousReading, as?: AgentId): Explanation {
  const r = reading(set, screen, previous, as);
  const d = r.detection;
  const human = (row: number | undefined): number | undefined => (row === undefined ? undefined : row + 1);
  return {
    agent: d.agent,
    state: d.state,
    source: d.source,
    detail: d.detail,
    ...(d.rule !== undefined && { rule: d.rule }),
    identity: { ...r.identity, ...(r.identity.row !== undefined && { row: r.identity.row + 1 }) },
    decided: {
      ...r.decided,
      ...(r.decided.row !== undefined && { row: r.decided.row + 1 }),
      ...(r.decided.line !== undefined && { line: shown(r.decided.line) }),
    },
    turn: { from: r.from + 1, ...(r.box && { box: [r.box[0] + 1, r.box[1] + 1] as const }) },
    passed: passedOver(set, r).map((p) => ({ ...p, row: human(p.row) })),
  };
}

/** Why a rule that matched did not decide, given what did. */
function outranked(decided: Decision, state: AgentState, row: number, decidedState: AgentState): string {
  if (decided.by === 'shape') return 'a question over a menu at or below it waits: it comes first';
  if (decided.by === 'title') return `the title (${decided.rule ?? ''}) tells what happens now`;
  if (decided.by === 'kept') return 'no rule decided';
  if (decidedState === 'waiting' && state !== 'waiting') return 'a question waits: it comes first';
  if (decided.row !== undefined && row < decided.row) return 'older than the line that decided';
  return `outranked by ${decided.rule ?? 'the line that decided'}`;
}

/**
 * Every rule of the agent that matches a row of the screen (newest first), or the title, and did
 * not decide: MAX_PASSED at most.
 */
function passedOver(set: RuleSet, r: Reading): PassedOver[] {
  const rules = set.agents.find((a) => a.id === r.detection.agent);
  if (!rules || r.decided.by === 'fallback') return [];
  const out: PassedOver[] = [];
  const { lines, title } = r.screen;
  const decidedState = r.detection.state;
  const decidedRule = r.decided.by === 'rule' ? rules.lines.find((x) => x.name === r.decided.rule) : undefined;
  const decidedByHint = decidedRule?.hint === true;
  // A screen drawn over the agent decided (LineRule.overlay): over every other line, wherever it stands.
  const overlay = decidedRule?.overlay === true;
  const overWhy = `a screen drawn over the agent (${r.decided.rule ?? ''}) decides wherever it stands`;
  const titleRule = rules.titles.find((t) => t.test.test(title));
  if (titleRule && r.decided.by !== 'title') {
    const why = overlay
      ? overWhy
      : decidedState === 'waiting'
        ? 'a question on the screen comes first'
        : titleRule.state === 'working' || titleRule.state === 'waiting'
          ? 'the line that ends the turn is newer than the title'
          : "the screen's lines come first: the title decides over them only Working or Waiting";
    out.push({ rule: titleRule.name, state: titleRule.state, line: shown(title), why });
  }
  if (r.menu && r.decided.by !== 'shape') {
    const why =
      decidedState === 'waiting'
        ? `${r.decided.rule ?? 'a rule'} told the same wait first`
        : overlay
          ? overWhy
          : 'a newer line decided';
    out.push({ rule: r.menu.shape, state: 'waiting', row: r.menu.row, line: shown(r.menu.line), why });
  }
  for (let row = lines.length - 1; row >= 0 && out.length < MAX_PASSED; row--) {
    const line = lines[row]!;
    const matching = rules.lines.filter((x) => x.test.test(line));
    if (matching.length === 0) continue;
    const inBox = r.box !== undefined && row >= r.box[0] && row <= r.box[1];
    const first = matching.find((x) => !inBox || x.hint);
    for (const rule of matching) {
      if (out.length >= MAX_PASSED) break;
      if (r.decided.by === 'rule' && r.decided.row === row && r.decided.rule === rule.name) continue;
      let why: string;
      if (row < r.from) why = "above the current turn: an earlier turn's";
      else if (inBox && !rule.hint) why = 'inside the input box: a draft tells nothing';
      else if (leftBehind(rule, row, r.latest)) why = 'above the latest block over the input box: a frame left behind';
      else if (first && rule !== first) why = `${first.name} matched this line first`;
      else if (rule.hint)
        why = decidedByHint ? 'a lower hint decided' : 'a hint: it tells only when no line of an event does';
      else why = overlay ? overWhy : outranked(r.decided, rule.state, row, decidedState);
      out.push({ rule: rule.name, state: rule.state, row, line: shown(line), why });
    }
  }
  return out;
}

const IDENTITY_TEXT: Record<Identity['by'], string> = {
  told: 'named by its process (or --agent)',
  'shell-prompt': 'the shell prompt is back',
  'title-marker': 'by its marker in the title',
  marker: 'by its marker on the screen',
  previous: "as read before: no agent's marker is on the screen",
  none: "no agent's marker is on the screen",
};

/** An explanation as lines of text for a person (the terminal, a scratch buffer, a bug report). */
export function explanationText(e: Explanation): string[] {
  const at = (row: number | undefined): string => (row === undefined ? 'title' : `row ${row}`);
  const id = e.identity;
  const where =
    id.by === 'marker' || id.by === 'shell-prompt'
      ? ` (${at(id.row)}${id.marker ? `: /${id.marker}/` : ''})`
      : id.by === 'title-marker'
        ? ` (/${id.marker ?? ''}/)`
        : '';
  const out = [
    `agent:   ${e.agent}, ${IDENTITY_TEXT[id.by]}${where}`,
    `state:   ${e.state} (${e.source})${e.detail ? `: ${shown(e.detail)}` : ''}`,
  ];
  const d = e.decided;
  if (d.by === 'rule' || d.by === 'shape') {
    out.push(`decided: ${d.by} ${d.rule ?? ''}, ${at(d.row)}: ${d.line ?? ''}`);
    if (d.origin !== undefined) out.push(`         (your rule, from ${shown(d.origin)})`);
  } else if (d.by === 'title') out.push(`decided: title rule ${d.rule ?? ''}: ${d.line ?? ''}`);
  else if (d.by === 'kept') out.push('decided: no rule matched: the state read before is kept (Idle at first)');
  else out.push('decided: no agent runs: the fallback is Idle');
  if (d.by !== 'fallback')
    out.push(
      `turn:    from row ${e.turn.from}${e.turn.box ? `; input box rows ${e.turn.box[0]}-${e.turn.box[1]}` : ''}`,
    );
  if (e.passed.length > 0) {
    out.push('passed over:');
    for (const p of e.passed) out.push(`  ${at(p.row)}: ${p.rule} (${p.state}): ${p.why}: ${p.line}`);
  }
  return out;
}
