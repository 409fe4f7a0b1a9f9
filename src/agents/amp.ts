// Sourcegraph Amp: its UI labels and its `<spinner> <title> - amp - <cwd>` title.
// Everything MadoHub knows of it: see types.ts.
import { BRAILLE, both, SHARED_RULES } from '../detect/common.js';
import type { AgentModule } from './types.js';

export const amp: AgentModule = {
  id: 'amp',
  displayName: 'Amp',
  screen: {
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
  },
  process: { names: ['amp'], script: /(?:^|\/)amp(?:\.js)?$|@(?:sourcegraph|ampcode)\/(?:amp|cli)\// },
  template: { description: 'Amp', command: ['amp'], prompt: 'type' },
  env: { names: [], prefixes: ['AMP_'] },
};
