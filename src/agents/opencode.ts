// OpenCode (1.18): its screens, its process, its session store.
// Everything MadoHub knows of it: see types.ts.
import { SHARED_RULES } from '../detect/common.js';
import { OpenCodeRecords, opencodeDataDir } from '../records/opencode.js';
import type { AgentModule } from './types.js';

/** `▣  Build · <model> · 10.8s` (or `850ms`, `1m 5s`, `1h 2m`): the footer of a finished answer. */
const FOOTER_DONE = /^\s*▣\s+\S.*·\s*(?:\d+(?:\.\d+)?(?:ms|s|m|h)\s*)+$/;

export const opencode: AgentModule = {
  id: 'opencode',
  displayName: 'OpenCode',
  bracketedPaste: true,
  screen: {
    id: 'opencode',
    markers: [/tab agents\s+ctrl\+p commands/, /△ Permission required/, /^\s*▣\s+\S+\s+·/, /opencode/i],
    titleMarkers: [/\bopencode\b/i],
    lines: [
      // A permission (a shell command, an edit, an MCP server's tool) and a question to the user.
      { state: 'waiting', test: /△ Permission required|Allow once\s+Allow always\s+Reject|↑↓ select\s+enter submit\s+esc dismiss/ },
      // Its progress bar (`⬝⬝■■ … esc interrupt`) and the hint; after one Escape, `esc again to
      // interrupt` while the answer still streams. The hint alone tells.
      { state: 'working', test: /esc (?:again to )?interrupt/ },
      // The footer of an answer: `▣  Build · <model> · 10.8s` when it finished, `· interrupted`
      // after two Escapes, no duration when it ended in an error (a box with the API's message).
      { state: 'stopped', test: FOOTER_DONE, completion: true },
      { state: 'failed', test: /^\s*▣\s+\S.*·\s*interrupted\s*$/, detail: 'interrupted' },
      { state: 'failed', test: /^\s*▣\s+[^·]*\S\s*·\s*[^·]*\S\s*$/, detail: 'error' },
      ...SHARED_RULES,
      { state: 'idle', test: /Ask anything…|ctrl\+p commands/, hint: true },
    ],
    titles: [],
    // `┃  run the tests` in a box of its own (`┃` rows around it), then the answer five columns in or
    // another box (a tool's output, an error). The input box is alike but ends in `┃  Build · <model>`;
    // a prompt typed while it works shows `┃   QUEUED` under it.
    prompt: {
      line: /^\s*┃  (?!.*\s·\s)(\S.*)$/,
      answered: /^ {5}\S|^\s*┃  (?!.*\s·\s)(?!\s*QUEUED\s*$)\S/,
      // The placeholder, and the agent line of the input box in layouts without `·` (`Build  <model>`).
      not: /^Ask anything…|^(?:Build|Plan) {2}\S/,
      skip: /^\s*┃\s*$/,
      inputEnd: /^\s*┃  \S.*\s·\s/,
    },
    // Below `┃  the prompt`, the answer indented five columns, then `▣  Build · model · 10.8s`.
    answer: {
      start: /^\s*┃\s+(\S.*)$/,
      end: FOOTER_DONE,
      item: /^ {5}(\S.*)$/,
      tool: /^ {5}[⚙✱→←]/,
      chrome: /^\s*[┃╹]|tab agents|esc interrupt/,
      indent: /^ {5}/,
    },
  },
  process: { names: ['opencode'], script: /(?:^|\/)opencode(?:\.js)?$|opencode-ai\// },
  template: { description: 'OpenCode', command: ['opencode'], prompt: 'type' },
  env: { names: [], prefixes: ['OPENCODE_'] },
  // Its session store (`<data>/opencode/opencode.db`, SQLite), where this Node can read SQLite.
  records: (ctx) => new OpenCodeRecords(opencodeDataDir(ctx.env), ctx.pid, ctx.folders, ctx.claims, ctx.emit, ctx.log),
};
