import { BRAILLE, both, SHARED_RULES } from './common.js';
import type { AgentRules } from './types.js';

/** Sourcegraph Amp: its UI labels and its `<spinner> <title> - amp - <cwd>` title. */
export const amp: AgentRules = {
  id: 'amp',
  markers: [/Welcome to Amp/, /ampcode\.com/],
  titleMarkers: [/\s-\samp\s-\s/, /^\s*amp\s*$/],
  lines: [
    { state: 'waiting', test: /Waiting for Approval/ },
    { state: 'working', test: /\b(?:Thinking|Streaming|Running Tools)\b/ },
    ...SHARED_RULES,
  ],
  // `⠋ <title> - amp - <cwd>`: a spinner first, the name later.
  titles: [{ state: 'working', test: both(new RegExp(`^\\s*${BRAILLE}\\s`), /\s-\samp\s-\s/) }],
};
