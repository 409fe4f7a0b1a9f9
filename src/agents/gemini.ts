// Google Gemini CLI (0.61).
// Everything MadoHub knows of it: see types.ts.
import { BRAILLE, ordered, SHARED_RULES } from '../detect/common.js';
import { isGeminiPrompt } from '../detect/records.js';
import { isObj } from '../shared/checks.js';
import { geminiDir, GeminiRecords } from '../records/gemini.js';
import { digitOf } from './menus.js';
import type { AgentModule } from './types.js';

export const gemini: AgentModule = {
  id: 'gemini',
  displayName: 'Gemini',
  bracketedPaste: true,
  screen: {
    id: 'gemini',
    markers: [
      /Type your message or @path\/to\/file/,
      /Gemini CLI/,
      /Do you trust the files in this folder\?/,
      // Its approval and question boxes alone: `│ Allow execution of [Shell]?`, `│ Allow execution of
      // MCP tool "add_note" from server "notes"?`, `│ Apply this change?`, `│ Answer Questions`, and
      // the `│ Action Required` header of 0.61's (an MCP tool, entering plan mode).
      /^│ (?:Allow execution of (?:\[|MCP tool )|Apply this change\?|(?:Answer Questions|Action Required)\s*│)/,
    ],
    titleMarkers: [/^\s*(?:◇|✦|✋)\s+(?:Ready|Working|Action Required)/],
    lines: [
      {
        state: 'waiting',
        test: /Allow execution of|Apply this change\?|Do you trust the files in this folder\?|Enter to select · ↑\/↓ to navigate/,
      },
      // One Escape cancels a turn (`ℹ Request cancelled.`); an API error is `✕ [API Error: …]`.
      { state: 'failed', test: /^\s*ℹ Request cancelled\./, detail: 'interrupted' },
      { state: 'failed', test: /^\s*✕ \[API Error\b/ },
      { state: 'working', test: ordered(new RegExp(`${BRAILLE}\\s`), '(esc to cancel') },
      ...SHARED_RULES,
      { state: 'idle', test: /Type your message or @path\/to\/file/, hint: true },
    ],
    titles: [
      { state: 'waiting', test: /^\s*✋\s+Action Required/, detail: 'action required' },
      { state: 'working', test: /^\s*✦\s+Working/ },
      { state: 'idle', test: /^\s*◇\s+Ready/ },
    ],
    // `> summarize the README` outside the input box, then the answer or a spinner.
    // `> summarize the README` (older) or ` > explain the parser` (0.61), then the answer (`✦`, a spinner).
    prompt: { line: /^ ?> (\S.*)$/, answered: /^\s*(?:[✦⠀-⣿]|[^│╭╰\s])/ },
    // `✦ text` items; tool calls and the input line are boxes (`╭ │ ╰`); no line ends the turn.
    answer: {
      item: /^✦ (.*)$/,
      tool: /^(?!)/,
      chrome: /^\s*[╭│╰]|^\s*[⠀-⣿]|^~\/|no sandbox|^\s*\? for shortcuts|^─{8,}|Shift\+Tab to accept|^\s*>\s{2,}Type your message|^\s*workspace \(/,
      indent: /^ {2}/,
    },
  },
  process: { names: ['gemini'], script: /(?:^|\/)gemini(?:\.js)?$|@google\/gemini-cli\// },
  template: { description: 'Gemini CLI', command: ['gemini'], prompt: 'type' },
  env: { names: [], prefixes: ['GEMINI_', 'GOOGLE_'] },
  // `● 1. Allow once`: a choice's digit picks it at once (0.61.0, tried on its approvals).
  menuKeys: (choice) => digitOf(choice),
  // Its chat (`<home>/.gemini/tmp/<project>/chats/session-*.jsonl`), opened when it starts.
  records: (ctx) => new GeminiRecords(geminiDir(ctx.env), ctx.pid, ctx.folders, ctx.claims, ctx.emit, ctx.log),
  // The model's last message with text, after the user's last prompt (tool results are not prompts).
  answerOf: (records) => {
    for (let i = records.length - 1; i >= 0; i--) {
      const r = records[i];
      if (!isObj(r)) continue;
      if (isGeminiPrompt(r)) return undefined;
      if (r.type === 'gemini' && typeof r.content === 'string' && r.content.trim() !== '') return r.content;
    }
    return undefined;
  },
};
