import { SHARED_RULES } from './common.js';
import type { AgentRules } from './types.js';

/** Claude Code (2.x, and the markers of the specification). */
export const claude: AgentRules = {
  id: 'claude',
  markers: [/[❯✽⏺]/, /Claude Code/],
  titleMarkers: [/Claude Code/],
  lines: [
    { state: 'failed', test: /Interrupted · What should Claude do instead\?/, detail: 'interrupted' },
    ...SHARED_RULES,
    // Spinner row of 2.1: a glyph, then `<Verb>ing…` (`✶ Baking… (3s · esc to interrupt)`).
    { state: 'working', test: /^\s*[·✢*✶✻✽✳∗]\s*[A-Z][a-z]+ing(?:…|\.\.\.)/ },
    // Trust dialog and approvals: questions waiting for the user.
    { state: 'waiting', test: /Enter to confirm · Esc to cancel|Esc to cancel · Tab to amend/ },
    // The input prompt at the left edge (dialog choices like ` ❯ 1. Yes` are indented). Short turns
    // end without a completion line: the prompt alone then says the turn is over.
    { state: 'idle', test: /^❯(?:\s|$)/, hint: true },
  ],
  titles: [
    // A spinner before the name means a turn is running; `✳ Claude Code` is idle or waiting.
    { state: 'working', test: /^\s*(?:[◐◑◒◓]|[\u2801-\u28ff])\s+Claude Code/ },
  ],
};
