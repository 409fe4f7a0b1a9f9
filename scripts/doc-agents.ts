// The lists in doc/madohub.txt that the code holds, written by `npm run build`: the agents
// (`*madohub-known-agents*`, from the agent modules) and the state words (`*madohub-state-words*`),
// and the operations (`*madohub-operations*`, from src/ops/), so that the doc names every agent,
// state and operation the code knows, as it prints them, and no other.
import { AGENT_MODULES, DEFAULT_AGENT, FALLBACK_AGENT } from '../src/agents/index.js';
import { statusWord } from '../src/fleet/job-table.js';
import { agentStateOfJob } from '../src/fleet/entry.js';
import { JOB_STATUSES, JOB_TEMPOS } from '../src/jobs/types.js';
import type { ListedJob } from '../src/jobs/protocol/replies.js';
import { AGENT_STATES, JOB_STATE_SOURCES, STATE_FACTS } from '../src/shared/types.js';
import type { AgentState } from '../src/shared/types.js';
import { OPS, usageLines } from '../src/ops/index.js';
import { PENDING, PENDING_WORDS } from '../src/shared/pending.js';
import { wrapWords } from '../src/shared/text.js';

export const BEGIN = '                                                       *madohub-known-agents*';
export const END = '(This list is written by the build from src/agents/.)';

const pad = (s: string, n: number): string => (s.length >= n ? `${s} ` : s.padEnd(n));

/** The lines of the list, from its tag line to its last line. */
export function agentList(): string[] {
  const cells = AGENT_MODULES.map((a) => {
    const what = [
      a.id === DEFAULT_AGENT ? 'default' : '',
      a.id === FALLBACK_AGENT ? 'fallback' : '',
      a.records ? 'records' : '',
      a.sessions ? 'sessions elsewhere' : '',
    ].filter((w) => w !== '');
    // The fallback's program is the user's login shell, whatever this machine's is.
    const program = a.fallback ? '$SHELL' : (a.template.command[0] ?? '');
    return [`\`${a.id}\``, a.displayName, `\`${program}\``, what.join(', ')] as const;
  });
  // Each column as wide as its widest cell and two spaces.
  const widths = [0, 1, 2].map((c) => Math.max(...cells.map((row) => row[c]!.length)) + 2);
  const rows = cells.map((row) =>
    `    ${row
      .slice(0, 3)
      .map((cell, c) => cell.padEnd(widths[c]!))
      .join('')}${row[3]}`.trimEnd(),
  );
  return [
    BEGIN,
    'The agents MadoHub knows, each one module (src/agents/<id>.ts): its id (in',
    '|madohub.state()|, `@agent`, `mado --bg --agent`), its name, the program its',
    'jobs run, and what more it has: the default agent, the fallback (what a',
    'terminal runs when no agent does), records that confirm its states',
    '(|madohub-confirmed|), sessions elsewhere that the picker lists.',
    '',
    ...rows,
    '',
    END,
  ];
}

/** `doc` with the block from `begin` to `end` replaced by `lines`; throws when the doc has no such block. */
function withBlock(doc: string, begin: string, end: string, lines: readonly string[], tag: string): string {
  const all = doc.split('\n');
  const from = all.indexOf(begin);
  const to = all.indexOf(end, from);
  if (from < 0 || to < 0) throw new Error(`doc/madohub.txt has no *${tag}* list to write`);
  return [...all.slice(0, from), ...lines, ...all.slice(to + 1)].join('\n');
}

/** `doc` with its list of agents replaced by `lines`; throws when the doc has no list to replace. */
export function withAgentList(doc: string, lines: readonly string[] = agentList()): string {
  return withBlock(doc, BEGIN, END, lines, 'madohub-known-agents');
}

export const STATES_BEGIN = '                                                        *madohub-state-words*';
export const STATES_END = '(This list is written by the build from src/shared/types.ts and src/fleet/entry.ts.)';

/** What each state means to the person reading it: a Record, so that a new state cannot go unsaid. */
const STATE_MEANINGS: Record<AgentState, string> = {
  working: 'at work on a turn',
  idle: 'waits for a prompt',
  waiting: 'asks you: approval, question, menu',
  stopped: 'a turn ended (the screen says)',
  completed: 'a turn ended (its records say)',
  failed: 'failed, or you interrupted it',
  exited: 'its program ended',
};

/** A job as far as its STATUS and STATE words go. */
export type JobKind = Pick<ListedJob, 'status' | 'tempo' | 'alive' | 'stateSource'>;

/** Every kind of job there can be: each status (its host alive or not, as it can be), tempo and source. */
export function everyJobKind(): JobKind[] {
  // A host lives while its job runs, and between turns (done); it is gone once the job ended otherwise.
  const alives = (status: JobKind['status']): boolean[] =>
    status === 'running' ? [true] : status === 'done' ? [true, false] : [false];
  return JOB_STATUSES.flatMap((status) =>
    alives(status).flatMap((alive) =>
      JOB_TEMPOS.flatMap((tempo) =>
        [null, ...JOB_STATE_SOURCES].map((stateSource) => ({ status, tempo, alive, stateSource })),
      ),
    ),
  );
}

/** The STATUS words `mado agents` prints beside each state, from how a job's state is derived. */
function statusesOf(state: AgentState): string[] {
  return [
    ...new Set(
      everyJobKind()
        .filter((j) => agentStateOfJob(j) === state)
        .map((j) => statusWord(j)),
    ),
  ];
}

/** The lines of the list of state words, from its tag line to its last line. */
export function stateWordList(): string[] {
  return [
    STATES_BEGIN,
    'The states, as `mado agents` prints them (its STATE column, followed by ✓',
    "when the agent's own records or word told it), as |madohub.state()|,",
    '|madohub.agents()|, `--json` and the events give them, and as',
    '`notify.states` and |:MadoMute| take them. The winbar and the picker show',
    "each one's label (`labels` in |madohub-config|). STATUS is what",
    '`mado agents` prints beside it for a job (|madohub-jobs|).',
    '',
    `    ${pad('STATE', 13)}${pad('meaning', 37)}STATUS`,
    ...AGENT_STATES.map((s) =>
      `    ${pad(`\`${s}\``, 13)}${pad(STATE_MEANINGS[s], 37)}${statusesOf(s)
        .map((w) => `\`${w}\``)
        .join(' ')}`.trimEnd(),
    ),
    '',
    STATES_END,
  ];
}

/** `doc` with its list of state words replaced by `lines`; throws when the doc has none. */
export function withStateWords(doc: string, lines: readonly string[] = stateWordList()): string {
  return withBlock(doc, STATES_BEGIN, STATES_END, lines, 'madohub-state-words');
}

export const OPS_BEGIN = '                                                         *madohub-operations*';
export const OPS_END = '(This list is written by the build from src/ops/.)';

/** The lines of the list of operations, from its tag line to its last line. */
export function opList(): string[] {
  return [
    OPS_BEGIN,
    'Operations ~',
    'Each is one file of src/ops/: `mado NAME`, `mado --host HOST NAME` and the',
    "picker run the same entry (a remote row's is run by its host's bridge).",
    '',
    ...OPS.flatMap((o) => [
      ...usageLines(o, 72).map((l, i) => `${i === 0 ? '    ' : '              '}${l}`),
      ...wrapWords(o.summary, 68)
        .split('\n')
        .map((l) => `        ${l}`),
    ]),
    '',
    OPS_END,
  ];
}

/** `doc` with its list of operations replaced by `lines`. */
export function withOpList(doc: string, lines: readonly string[] = opList()): string {
  return withBlock(doc, OPS_BEGIN, OPS_END, lines, 'madohub-operations');
}

/**
 * The text of lua/madohub/pending.lua: why a reply waits (an entry's `pending` code) in a person's
 * words (PENDING_WORDS), so that the Lua side shows the codes Node sends and keeps no words of its own.
 */
export function pendingLua(): string {
  return [
    '---Generated by `npm run build` (scripts/doc-agents.ts) from PENDING_WORDS of src/shared/pending.ts;',
    "---do not edit. Why a reply waits (an entry's `pending`, a code), in a person's words.",
    '',
    `---@alias madohub.Pending ${PENDING.map((p) => `"${p}"`).join('|')}`,
    '',
    '---@type table<madohub.Pending, string>',
    'return {',
    ...PENDING.map((p) => `  [${luaString(p)}] = ${luaString(PENDING_WORDS[p])},`),
    '}',
    '',
  ].join('\n');
}

/** A Lua string literal of `text` (single-quoted, as StyLua writes them). */
const luaString = (text: string): string => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;

/**
 * The text of lua/madohub/states.lua: every state and its facts (STATE_FACTS), so that the Lua side
 * keeps no list of states of its own and needs no Node process to draw one.
 */
export function statesLua(): string {
  return [
    '---Generated by `npm run build` (scripts/doc-agents.ts) from STATE_FACTS of src/shared/types.ts; do not',
    "---edit. Every state of an agent, in the glossary's order, and its facts (|madohub-glossary|).",
    '',
    `---@alias madohub.StateName ${AGENT_STATES.map((s) => `"${s}"`).join('|')}`,
    '',
    '---@class madohub.StateFacts',
    '---@field name madohub.StateName',
    '---@field word string Its word: the default of the `words` setting.',
    "---@field glyph string Its glyph in the picker's rows.",
    "---@field group string Its group in the picker's state groups.",
    '---@field link string The standard highlight group its `Mado*` group links to by default.',
    '---@field told boolean Whether a change to it is told by default (`notify.states`).',
    "---@field counts string What it counts as in what needs you: 'waiting', 'done', 'failed' or ''.",
    '',
    'local M = {}',
    '',
    '---@type madohub.StateFacts[]',
    'M.list = {',
    ...AGENT_STATES.flatMap((s) => {
      const f = STATE_FACTS[s];
      return [
        '  {',
        `    name = ${luaString(s)},`,
        `    word = ${luaString(f.word)},`,
        `    glyph = ${luaString(f.glyph)},`,
        `    group = ${luaString(f.group)},`,
        `    link = ${luaString(f.link)},`,
        `    told = ${f.told},`,
        `    counts = ${luaString(f.counts)},`,
        '  },',
      ];
    }),
    '}',
    '',
    '---Each state by its name.',
    '---@type table<madohub.StateName, madohub.StateFacts>',
    'M.of = {}',
    'for _, s in ipairs(M.list) do',
    '  M.of[s.name] = s',
    'end',
    '',
    'return M',
    '',
  ].join('\n');
}
