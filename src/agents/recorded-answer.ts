// The answer of the last prompt in an agent's records: one reading for every agent, each module
// saying which record is a prompt and which holds an answer. Pure.
import { isObj, timeOf } from '../shared/checks.js';
import type { RecordedAnswer } from './types.js';

/**
 * Reads `records` (oldest first) back from the end: the last answer written after the last prompt,
 * with that prompt's own time; undefined when the last prompt has no answer yet. When the part read
 * holds no prompt (a long turn's start cut off), the last answer, of a prompt not known.
 */
export function answerOfLastPrompt(
  records: readonly unknown[],
  isPrompt: (record: unknown) => boolean,
  answerAt: (records: readonly unknown[], i: number) => string | undefined,
): RecordedAnswer | undefined {
  let text: string | undefined;
  for (let i = records.length - 1; i >= 0; i--) {
    const r = records[i];
    if (isPrompt(r))
      return text === undefined ? undefined : { text, promptAt: isObj(r) ? timeOf(r.timestamp) : undefined };
    text ??= answerAt(records, i);
  }
  return text === undefined ? undefined : { text, promptAt: undefined };
}
