// Google Gemini CLI (0.6).
// Everything MadoHub knows of it: see types.ts.
import { BRAILLE, ordered, SHARED_RULES } from '../detect/common.js';
import type { AgentModule } from './types.js';

export const gemini: AgentModule = {
  id: 'gemini',
  displayName: 'Gemini',
  screen: {
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
  },
  process: { names: ['gemini'], script: /(?:^|\/)gemini(?:\.js)?$|@google\/gemini-cli\// },
  // `> summarize the README` outside the input box, then the answer or a spinner.
  // `> summarize the README` (older) or ` > explain the parser` (0.61), then the answer (`✦`, a spinner).
  prompt: { line: /^ ?> (\S.*?)\s*$/, answered: /^\s*(?:[✦⠀-⣿]|[^│╭╰\s])/ },
  // `✦ text` items; tool calls and the input line are boxes (`╭ │ ╰`); no line ends the turn.
  answer: {
    item: /^✦ (.*)$/,
    tool: /^(?!)/,
    chrome: /^\s*[╭│╰]|^\s*[⠀-⣿]|^~\/|no sandbox|^\s*\? for shortcuts|^─{8,}|Shift\+Tab to accept|^\s*>\s{2,}Type your message|^\s*workspace \(/,
    indent: /^ {2}/,
  },
  template: { description: 'Gemini CLI', command: ['gemini'], prompt: 'type' },
  env: { names: [], prefixes: ['GEMINI_', 'GOOGLE_'] },
};
