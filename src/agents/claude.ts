// Claude Code (2.x).
// Everything MadoHub knows of it: see types.ts.
import { COMPLETION, SHARED_RULES } from '../detect/common.js';
import { isObj } from '../shared/checks.js';
import { ClaudeRecords, claudeConfigDir } from '../records/claude.js';
import { arrowsTo } from './menus.js';
import type { AgentModule } from './types.js';

export const claude: AgentModule = {
  id: 'claude',
  displayName: 'Claude Code',
  default: true,
  bracketedPaste: true,
  screen: {
    id: 'claude',
    markers: [/[❯✽⏺]/, /Claude Code/],
    titleMarkers: [/Claude Code/],
    lines: [
      { state: 'failed', test: /Interrupted · What should Claude do instead\?/, detail: 'interrupted' },
      // An API error ends the turn: `● API Error: 400 …`.
      { state: 'failed', test: /^\s*[●⏺] API Error\b/ },
      ...SHARED_RULES,
      // Spinner row of 2.1: a glyph, then `<Verb>ing…` (`✶ Baking… (3s · esc to interrupt)`).
      { state: 'working', test: /^\s*[·✢*✶✻✽✳∗]\s*[A-Z][a-z]+ing(?:…|\.\.\.)/ },
      // Trust dialog and approvals (shell, edit, MCP tool), its questions to the user (`Enter to
      // select · ↑/↓ to navigate`) and the end of plan mode (`Exit plan mode?`): waiting for the user.
      {
        state: 'waiting',
        test: /Enter to confirm · Esc to cancel|Esc to cancel · Tab to amend|Enter to select · ↑\/↓ to navigate|^\s*Exit plan mode\?|Claude wants to exit plan mode/,
      },
      // The input prompt at the left edge (dialog choices like ` ❯ 1. Yes` are indented). Short turns
      // end without a completion line: the prompt alone then says the turn is over.
      { state: 'idle', test: /^❯(?:\s|$)/, hint: true },
    ],
    titles: [
      // A spinner before the name means a turn is running; `✳ Claude Code` is idle or waiting.
      { state: 'working', test: /^\s*(?:[◐◑◒◓]|[\u2801-\u28ff])\s+Claude Code/ },
    ],
    // `> add a test` (older) or `❯ tell me something slow` (2.1), then the answer (`●`, `⏺`, `⎿`, a spinner).
    prompt: { line: /^(?:>|❯) (\S.*)$/, answered: /^\s*(?:[●⏺⎿·✢*✶✻✽✳]|\S.*…)/ },
    // `● text` items, `● Bash(rm -rf build)` tool calls with `  ⎿  Done` under them; the completion line ends the turn.
    answer: {
      end: COMPLETION,
      item: /^[●⏺] (.*)$/,
      tool: /^[●⏺] [A-Z][\w.:-]*\(.*\)\s*$/,
      chrome: /^─{8,}|^❯(?:\s|$)|^\s*[·✢*✶✻✽✳∗]\s*[A-Z][a-z]+ing(?:…|\.\.\.)/,
      indent: /^ {2}/,
    },
  },
  // The native `claude` (or `claude.exe`), or node running `…/claude` or `@anthropic-ai/claude-code/cli.js`.
  process: { names: ['claude', 'claude.exe'], script: /(?:^|\/)claude(?:\.js)?$|@anthropic-ai\/claude-code\// },
  template: {
    description: 'Claude Code',
    command: ['claude'],
    prompt: 'arg',
    resume: ['--resume', '{id}'],
    continue: ['--continue'],
    fork: ['--fork-session'],
    sessionId: ['--session-id', '{session}'],
  },
  env: {
    names: [
      'DISABLE_AUTOUPDATER', 'DISABLE_TELEMETRY', 'DISABLE_ERROR_REPORTING', 'DISABLE_BUG_COMMAND', 'DISABLE_COST_WARNINGS',
      'DISABLE_NON_ESSENTIAL_MODEL_CALLS', 'MAX_THINKING_TOKENS', 'MCP_TIMEOUT', 'MCP_TOOL_TIMEOUT', 'MAX_MCP_OUTPUT_TOKENS',
      'BASH_DEFAULT_TIMEOUT_MS', 'BASH_MAX_TIMEOUT_MS', 'BASH_MAX_OUTPUT_LENGTH', 'USE_BUILTIN_RIPGREP', 'ENABLE_TOOL_SEARCH',
      'CLOUD_ML_REGION',
    ],
    prefixes: ['ANTHROPIC_', 'CLAUDE_', 'DISABLE_PROMPT_CACHING', 'VERTEX_REGION_'],
  },
  // Its session file (`<config>/sessions/<pid>.json`) and the transcript it names.
  records: (ctx) => new ClaudeRecords(claudeConfigDir(ctx.env), ctx.pid, ctx.folders, ctx.emit, ctx.log),
  // Its menus move with the arrow keys and take Enter. Its number keys are not used: they reach the
  // input line instead of the menu when pressed as it appears (anthropics/claude-code#64629, #27924).
  menuKeys: (choice, highlighted) => arrowsTo(choice, highlighted),
  // Nor its Enter: pressed within a moment of the approval's drawing, it is lost (the menu stays; seen
  // in 2.1.332, 13 answers in 20 from the picker, its menu drawn 0.1-0.5 s before).
  menuSettleMs: 600,
  // The last assistant message that ended the turn (stop_reason end_turn), of the main conversation
  // (not a sub-agent's sidechain): the text of all its records (one per content block, one message id).
  answerOf: (records) => {
    const main = records.filter((r): r is { message: Record<string, unknown> } =>
      isObj(r) && r.type === 'assistant' && r.isSidechain !== true && isObj(r.message));
    for (let i = main.length - 1; i >= 0; i--) {
      const m = main[i]!.message;
      if (m.stop_reason !== 'end_turn') continue;
      const text = main
        .filter((r) => (m.id === undefined ? r === main[i] : r.message.id === m.id))
        .flatMap((r) => (Array.isArray(r.message.content) ? r.message.content : []))
        .filter((c): c is { type: 'text'; text: string } => isObj(c) && c.type === 'text' && typeof c.text === 'string' && c.text !== '')
        .map((c) => c.text);
      return text.length > 0 ? text.join('\n\n') : undefined;
    }
    return undefined;
  },
};
