// From a job's screen to its file: the same detectors as the plugin, mapped to tempo/needs/block.
import { FALLBACK_AGENT } from '../agents/index.js';
import type { Detection } from '../detect/index.js';
import { MAX_DETAIL } from '../shared/text.js';
import { optionsOf, questionOf } from '../detect/question.js';
import type { JobQuestion, JobFile } from './types.js';
import { isJobStateSource } from '../shared/types.js';

/** What a detection means for a job's file. */
export function jobPatch(d: Detection, lines: readonly string[]): Partial<JobFile> {
  const detail = d.detail.slice(0, MAX_DETAIL);
  const who: Partial<JobFile> = {
    ...(d.agent === FALLBACK_AGENT ? {} : { agent: d.agent }),
    stateSource: isJobStateSource(d.source) ? d.source : 'pty-scrape',
  };
  if (d.state === 'waiting') {
    // The question itself where the screen shows one; else the line that told the detector.
    const text = questionOf(lines) ?? d.detail;
    const question: JobQuestion = { text, options: optionsOf(lines) };
    return {
      ...who,
      status: 'running',
      tempo: 'blocked',
      needs: text || 'an answer',
      block: { questions: [question] },
      detail,
    };
  }
  if (d.state === 'working') return { ...who, status: 'running', tempo: 'active', needs: null, block: null, detail };
  // The end of a turn: the job is done (its agent stays up for more; work makes it run again).
  if (d.state === 'stopped' || d.state === 'completed') {
    return { ...who, status: 'done', tempo: 'idle', needs: null, block: null, detail };
  }
  return { ...who, tempo: 'idle', needs: null, block: null, detail };
}
