// OpenCode (1.18): its screens, its process.
// Everything MadoHub knows of it: see types.ts.
import { SHARED_RULES } from '../detect/common.js';
import type { AgentModule } from './types.js';

export const opencode: AgentModule = {
  id: 'opencode',
  displayName: 'OpenCode',
  screen: {
    id: 'opencode',
    markers: [/tab agents\s+ctrl\+p commands/, /△ Permission required/, /^\s*▣\s+\S+\s+·/, /opencode/i],
    titleMarkers: [/\bopencode\b/i],
    lines: [
      { state: 'waiting', test: /△ Permission required|Allow once\s+Allow always\s+Reject/ },
      // Its progress bar (`⬝⬝■■ … esc interrupt`) and the hint; the hint alone tells.
      { state: 'working', test: /esc interrupt/ },
      // `▣  Build · <model> · 10.8s`: the footer of a finished answer.
      { state: 'stopped', test: /^\s*▣\s+\S.*·\s*\d+(?:\.\d+)?s\s*$/, completion: true },
      ...SHARED_RULES,
      { state: 'idle', test: /Ask anything…|ctrl\+p commands/, hint: true },
    ],
    titles: [],
  },
  process: { names: ['opencode'], script: /(?:^|\/)opencode(?:\.js)?$|opencode-ai\// },
  // Below `┃  the prompt`, the answer indented five columns, then `▣  Build · model · 10.8s`.
  answer: {
    start: /^\s*┃\s+(\S.*?)\s*$/,
    end: /^\s*▣\s+\S.*·\s*\d+(?:\.\d+)?s\s*$/,
    item: /^ {5}(\S.*)$/,
    tool: /^ {5}[⚙✱→←]/,
    chrome: /^\s*[┃╹]|tab agents|esc interrupt/,
    indent: /^ {5}/,
  },
  template: { description: 'OpenCode', command: ['opencode'], prompt: 'type' },
  env: { names: [], prefixes: ['OPENCODE_'] },
};
