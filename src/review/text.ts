// A turn's review in words, as `mado review` prints it: a head line (who, which turn, when, where; the
// others that worked there), then the unified diff. Every control byte of a file's text or name is
// shown, never sent raw to a terminal (tabs and line ends excepted).
import { BIDI } from '../shared/text.js';
import type { TurnReview } from './read.js';
import { unifiedDiff } from './read.js';

/** The C0 controls but tab and line end, DEL, and the C1 controls. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

const codePoint = (c: string): string => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}>`;

/** Text with its control bytes shown as `^[` and `<U+202E>`, so that printing it acts on nothing. */
export function shownBytes(text: string): string {
  return text
    .replace(CONTROL, (c) => {
      const code = c.charCodeAt(0);
      return code < 0x20 ? `^${String.fromCharCode(code + 64)}` : code === 0x7f ? '^?' : codePoint(c);
    })
    .replace(BIDI, codePoint);
}

/** One line of it: a line end and a tab shown too (a name or a folder from outside never makes two lines). */
const shownLine = (text: string): string => shownBytes(text).replace(/\n/g, '^J').replace(/\t/g, '^I');

const clock = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** The head of a review: `claude work · turn 3 (kept 1–3) · 2026-12-06 10:01 → 10:04 · /path`, and its words. */
export function reviewHead(r: TurnReview): string[] {
  const when = `${clock(r.startedAt)} → ${r.endedAt === null ? 'now' : clock(r.endedAt).slice(11)}`;
  const lines = [`${r.name} · turn ${r.turn} (kept ${r.first}–${r.last}) · ${when} · ${r.folder}`];
  for (const o of r.others) lines.push(`${o} also worked here during this turn`);
  if (r.skipped) lines.push(`not shown: ${r.skipped}`);
  else if (r.files.length === 0) lines.push('no change');
  else {
    const added = r.files.reduce((n, f) => n + f.added, 0);
    const removed = r.files.reduce((n, f) => n + f.removed, 0);
    lines.push(`${r.files.length + (r.more ?? 0)} file(s) changed, +${added} -${removed}`);
  }
  if (r.more) lines.push(`${r.more} more file(s) not shown`);
  return lines.map(shownLine);
}

/** The review as `mado review` prints it. */
export function reviewText(r: TurnReview): string {
  const diff = unifiedDiff(r);
  return `${reviewHead(r).join('\n')}\n${diff ? `\n${shownBytes(diff)}` : ''}`;
}
