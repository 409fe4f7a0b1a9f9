import { BRAILLE, SHARED_RULES } from './common.js';
import type { AgentRules } from './types.js';

/** OpenAI Codex CLI (0.17x and the markers of the specification). */
export const codex: AgentRules = {
  id: 'codex',
  markers: [
    /OpenAI Codex/,
    /codex>/,
    /openai\/codex/,
    /codex v[0-9]/,
    /> _ OpenAI Codex/,
    /codex --dangerously/i,
    /codex.*fast/i,
    /gpt-[0-9.]+ x?high/,
    /Ask Codex to do anything/,
  ],
  titleMarkers: [/\bcodex\b/i],
  lines: [
    { state: 'failed', test: /■ Conversation interrupted/, detail: 'interrupted' },
    { state: 'waiting', test: /Would you like to run the following command\?|Press enter to confirm or esc to cancel/ },
    // `Worked for 10s • 19:35`: Codex prints its done line without a glyph.
    { state: 'stopped', test: /^\s*(?:─\s*)?Worked for (?:\d+\s*[hm]\s*)*\d+\s*s\b/, completion: true },
    ...SHARED_RULES,
    { state: 'idle', test: /› Ask Codex to do anything/, hint: true },
  ],
  titles: [
    { state: 'waiting', test: /\[ ! \] Action Required/, detail: 'action required' },
    { state: 'working', test: new RegExp(`^\\s*${BRAILLE}`) },
  ],
};
