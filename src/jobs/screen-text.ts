// A job's output as a person reads it: its terminal model's scrollback and screen as lines of text
// (wrapped rows joined, no control sequences), whether the host is up or its output log is replayed.
import { Terminal } from '@xterm/headless';
import { textRows } from '../shared/text.js';

/** How many rows of scrollback a job's output replayed from its log keeps (what `mado logs` shows at most). */
export const SCROLLBACK = 5000;
/**
 * How many rows of scrollback a live host's terminal model keeps: what `mado logs -f` needs between two
 * of the host's tellings. The rest is in the job's output log, replayed when asked for. A row costs 12
 * bytes a column: 5,000 rows kept 15 MiB in each host of a job that had printed that much (100 columns).
 */
export const LIVE_SCROLLBACK = 500;

/** The current screen: its rows (trailing blank rows trimmed) and the cursor row. */
export function screenOf(term: Terminal): { lines: string[]; cursor: number } {
  const b = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < term.rows; i++) lines.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  lines.length = textRows(lines);
  return { lines, cursor: b.cursorY };
}

/**
 * A job's output as text: its lines, and how many of them have left the screen (they change no more);
 * `whole` false when the model has let its oldest rows go (a live host's: LIVE_SCROLLBACK).
 */
export interface JobText {
  lines: string[];
  settled: number;
  whole?: boolean;
}

/** Every row of the normal buffer's scrollback and screen, wrapped rows joined, blank rows at the end trimmed. */
export function textOf(term: Terminal): JobText {
  const b = term.buffer.normal;
  const out: string[] = [];
  let settled = -1;
  for (let i = 0; i < b.length; i++) {
    const line = b.getLine(i);
    if (!line) continue;
    if (i === b.baseY) settled = line.isWrapped ? out.length - 1 : out.length;
    const text = line.translateToString(true);
    if (line.isWrapped && out.length > 0) out[out.length - 1] += text;
    else out.push(text);
  }
  if (settled < 0) settled = out.length;
  // A full-screen program draws on the alternate screen: what it shows now comes after the rest.
  if (term.buffer.active.type === 'alternate') out.push(...screenOf(term).lines);
  out.length = textRows(out);
  return { lines: out, settled: Math.max(0, Math.min(settled, out.length)) };
}

/** A live host's text: its model's, and whether it still holds every row since the job started. */
export function liveText(term: Terminal): JobText {
  return { ...textOf(term), whole: term.buffer.normal.length < term.rows + LIVE_SCROLLBACK };
}

/** The text of a recorded PTY stream, replayed through a terminal model of the job's size. */
export function replayText(data: string, cols: number, rows: number): Promise<JobText> {
  const term = new Terminal({ cols, rows, scrollback: SCROLLBACK, allowProposedApi: true });
  return new Promise((resolve) => {
    term.write(data, () => {
      const text = textOf(term);
      term.dispose();
      resolve(text);
    });
  });
}
