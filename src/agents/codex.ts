// OpenAI Codex CLI (0.17x).
// Everything MadoHub knows of it: see types.ts.
import { BRAILLE, SHARED_RULES } from '../detect/common.js';
import { CodexRecords, codexHome } from '../records/codex.js';
import { isObj } from '../shared/checks.js';
import { digitOf } from './menus.js';
import type { AgentModule } from './types.js';

/** Its dialogs (a model to switch to at start, …), which wait for a key. */
const DIALOG = /enter\/esc confirm · \^c quit/;

/**
 * Its approvals (a command, an edit, an MCP tool) and its questions in Plan mode (`enter to submit
 * answer | esc to interrupt`: no work): Waiting, and, shown alone, still Codex's.
 */
const APPROVAL =
  /Would you like to (?:run the following command|make the following edits)\?|Press enter to confirm or esc to cancel|Allow the \S+ MCP server to run tool|enter to submit (?:answer )?\| esc to (?:cancel|interrupt)/;

export const codex: AgentModule = {
  id: 'codex',
  displayName: 'Codex',
  bracketedPaste: true,
  screen: {
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
      DIALOG,
      // Its approvals' own words: a menu shown alone (after :MadoRestart) still names Codex.
      APPROVAL,
    ],
    // Its name, or its `[ ! ] Action Required | <thread> | <folder>` title.
    titleMarkers: [/\bcodex\b/i, /^\s*\[ [!.] \] Action Required \|/],
    lines: [
      { state: 'failed', test: /■ Conversation interrupted/, detail: 'interrupted' },
      // Any other `■ …` line ends a turn in an error (`■ {"error":{"message":…}}`, `■ stream disconnected…`).
      { state: 'failed', test: /^■ \S/ },
      { state: 'waiting', test: DIALOG },
      { state: 'waiting', test: APPROVAL },
      // `Worked for 10s • 19:35`: Codex prints its done line without a glyph.
      { state: 'stopped', test: /^\s*(?:─\s*)?Worked for (?:\d+\s*[hm]\s*)*\d+\s*s\b/, completion: true },
      ...SHARED_RULES,
      { state: 'idle', test: /› Ask Codex to do anything/, hint: true },
    ],
    titles: [
      // `[ ! ] Action Required`, blinking to `[ . ] Action Required` (0.171).
      { state: 'waiting', test: /\[ [!.] \] Action Required/, detail: 'action required' },
      { state: 'working', test: new RegExp(`^\\s*${BRAILLE}`) },
    ],
    // `› fix the failing parser test`, then `•` or `◦` rows.
    prompt: { line: /^› (\S.*)$/, answered: /^\s*[•◦└■]/, not: /^Ask Codex to do anything$/ },
    // `• text` items, `• Ran npm test` tool calls with `  └ …` under them; `Worked for 6s` ends the turn.
    answer: {
      end: /^\s*(?:─\s*)?Worked for (?:\d+\s*[hm]\s*)*\d+\s*s\b/,
      item: /^• (.*)$/,
      tool: /^• (?:Ran|Running|Explored|Exploring|Edited|Read|Searched|Called|Updated|Added|Deleted|Waited|Applied)\b/,
      chrome: /^› |^\s*[←?] for |^\s*⚠|^\s*⏎ send|^• Working \(|\S+ default · /,
      indent: /^ {2}/,
    },
  },
  // The native `codex` (the launcher's child), or node running `…/bin/codex(.js)`.
  process: { names: ['codex', 'codex.exe', 'codex-linux-x64', 'codex-x86_64-unknown-linux-musl'], script: /(?:^|\/)codex(?:\.js)?$|@openai\/codex\// },
  template: {
    description: 'Codex',
    command: ['codex'],
    prompt: 'arg',
    resume: ['resume', '{id}'],
    continue: ['resume', '--last'],
  },
  env: { names: ['RUST_LOG'], prefixes: ['CODEX_', 'OPENAI_'] },
  // `› 1. Yes, proceed (y)`: a choice's digit picks it at once (0.171.0, tried on its approvals).
  menuKeys: (choice) => digitOf(choice),
  // Its rollout (`<home>/sessions/YYYY/MM/DD/rollout-*.jsonl`), held open by one of the terminal's processes.
  records: (ctx) => new CodexRecords(codexHome(ctx.env), ctx.pid, ctx.pids, ctx.folders, ctx.claims, ctx.emit, ctx.log),
  // The last turn's final message, as its `task_complete` event records it.
  answerOf: (records) => {
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (!isObj(r) || r.type !== 'event_msg' || !isObj(r.payload)) continue;
      const p = r.payload;
      if (p.type === 'task_complete' && typeof p.last_agent_message === 'string' && p.last_agent_message !== '') return p.last_agent_message;
    }
    return undefined;
  },
};
