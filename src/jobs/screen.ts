// From a job's screen to its record: the same detectors as the plugin, mapped to tempo/needs/block.
import type { Detection } from '../detect/index.js';
import type { JobQuestion, JobState } from './types.js';

const OPTION = /^\s*(?:[❯›>●]\s*)?(\d+)\.\s+(.+?)\s*$/;

/** The choices of a question on the screen (`❯ 1. Yes`, `  2. No, …`), in order. */
export function optionsOf(lines: readonly string[]): string[] {
  const out: string[] = [];
  for (const line of lines) {
    const m = OPTION.exec(line.replace(/^[\s│┃]+|[\s│┃]+$/g, ''));
    if (m && Number(m[1]) === out.length + 1) out.push(m[2]!);
  }
  return out;
}

/** What a detection means for a job's record. */
export function jobPatch(d: Detection, lines: readonly string[]): Partial<JobState> {
  const detail = d.detail.slice(0, 120);
  const who: Partial<JobState> = d.agent === 'shell' ? {} : { agent: d.agent };
  if (d.state === 'waiting') {
    const question: JobQuestion = { text: d.detail, options: optionsOf(lines) };
    return { ...who, tempo: 'blocked', needs: d.detail || 'an answer', block: { questions: [question] }, detail };
  }
  const tempo = d.state === 'working' ? 'active' : 'idle';
  return { ...who, tempo, needs: null, block: null, detail };
}
