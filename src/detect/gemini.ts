import { BRAILLE, ordered, SHARED_RULES } from './common.js';
import type { AgentRules } from './types.js';

/** Google Gemini CLI (0.6). Not in the specification's list; its screens as printed today. */
export const gemini: AgentRules = {
  id: 'gemini',
  markers: [/Type your message or @path\/to\/file/, /Gemini CLI/, /Do you trust the files in this folder\?/],
  titleMarkers: [/^\s*(?:◇|✦|✋)\s+(?:Ready|Working|Action Required)/],
  lines: [
    { state: 'waiting', test: /Allow execution of|Do you trust the files in this folder\?/ },
    { state: 'working', test: ordered(new RegExp(`${BRAILLE}\\s`), '(esc to cancel') },
    ...SHARED_RULES,
    { state: 'idle', test: /Type your message or @path\/to\/file/, hint: true },
  ],
  titles: [
    { state: 'waiting', test: /^\s*✋\s+Action Required/, detail: 'action required' },
    { state: 'working', test: /^\s*✦\s+Working/ },
    { state: 'idle', test: /^\s*◇\s+Ready/ },
  ],
};
