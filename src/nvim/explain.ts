// `:MadoExplain`: why the terminal in the current split has its state. The screen's reading
// explained (the agent and how it was told, the rule that decided, the rules passed over), with
// what the other sources say (the process tree, the agent's records) and which one the state is from.
import { explainScreen } from '../agents/index.js';
import { explanationText } from '../detect/explain.js';
import type { SourcedState } from '../state/precedence.js';
import type { Tracker } from '../state/tracker.js';
import { clip } from '../shared/text.js';
import { screenOf } from './messages.js';
import type { SentScreen } from './messages.js';

const ago = (at: number, now: number): string => `${Math.max(0, Math.round((now - at) / 1000))} s ago`;
const sourced = (what: string, s: SourcedState | undefined, now: number): string =>
  s ? `${what} ${s.state} (${s.source}, ${ago(s.at, now)})${s.detail ? `: ${clip(s.detail)}` : ''}` : `${what} none`;

/** Why a terminal reads as it does: lines of text, and one line for :checkhealth. */
export interface TerminalExplanation {
  lines: string[];
  summary: string;
}

/** The explanation of terminal `m.buf`'s state; `m` is a screen as the watcher sends it. */
export function explainTerminal(tracker: Tracker, m: SentScreen, now = Date.now()): TerminalExplanation {
  const msg = screenOf(m);
  const state = tracker.get(msg.buf);
  const sources = tracker.sourcesOf(msg.buf);
  const process = sources?.processAgent;
  const out = [
    `buffer ${msg.buf}: ${state ? `${state.agent}, ${state.state}, from ${state.source}${state.confirmed ? " (confirmed: the agent's own word)" : ''}` : 'no state yet'}`,
  ];
  out.push(
    `process tree: ${process === undefined ? 'not scanned yet' : process === null ? 'no agent among its processes' : `${process} (its rules read the screen)`}`,
    `records: ${sourced('live status', sources?.live, now)}; ${sourced('turn', sources?.turn, now)}`,
    `notifications: ${sources?.notified ? `${sources.notified.state} (${ago(sources.notified.at, now)}): ${clip(sources.notified.detail)}` : 'none'}`,
    'which source wins: :help madohub-precedence',
    '',
    'the screen:',
  );
  const e = explainScreen(msg, sources?.screen, process ?? undefined);
  for (const line of explanationText(e)) out.push(`  ${line}`);
  const by = e.decided.rule
    ? `${e.decided.rule}${e.decided.row !== undefined ? ` (row ${e.decided.row})` : ' (the title)'}`
    : e.decided.by === 'kept'
      ? 'no rule (kept)'
      : 'no agent';
  const summary = `${state ? `${state.agent} ${state.state} from ${state.source}` : 'no state yet'}; the screen: ${e.agent} ${e.state} by ${by}`;
  return { lines: out, summary };
}
