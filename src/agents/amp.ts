// Amp (the `amp` CLI of @ampcode/cli, which @sourcegraph/amp installs): its screens and its process.
// Everything MadoHub knows of it: see types.ts.
//
// Its screen (read from the real CLI): the prompts it echoes (` ┃ fix the parser`), the answer below
// them, and an input box whose bottom border tells what the thread does (`╰ ∼ Streaming 9 tok ──`,
// the glyph `∼`/`≈`/`≋` animating), plain (`╰────`) when it does nothing. Its title is `⠋ amp - <cwd>`
// (a spinner while it works, empty once the turn ends). Amp keeps its threads on its server: it
// writes no local record of a turn, so its states come from the screen only.
import { BRAILLE, both, SHARED_RULES } from '../detect/common.js';
import type { AgentModule } from './types.js';

/** The labels the input box's border shows while a turn runs (Amp's own status words). */
const BUSY =
  /^(?:╰ | *)[∿∼≈≋] (?:Connecting|Preparing Thread|Auto-Compacting|Sending|Waiting(?! for Approval)|Thinking|Streaming|Running Tools?|Cancelling|Catching Up)\b/;

/** `╭─ Approval Required ──╮` over `‣ Allow Once` … `Allow All for Every Session`. */
const APPROVAL =
  /╭─ Approval Required ─|Allow All for (?:This|Every) Session|↑\/↓\/j\/k move · Enter select · Esc cancel/;

/** An error box (`Model Provider Overloaded`, `Error` …) that offers `‣ Retry` and `Dismiss`. */
const ERROR_CHOICE = /^│\s+‣ Retry\s+│$/;

export const amp: AgentModule = {
  id: 'amp',
  displayName: 'Amp',
  bracketedPaste: true,
  screen: {
    id: 'amp',
    markers: [
      // Its start screen (`Welcome to Amp`, `… to the Orb`, `… to your Agent`: the words vary).
      /ctrl\+o for commands · \? for shortcuts/,
      /Welcome to Amp/,
      /ampcode\.com/,
      // The input box: its agent mode on the top border, its status or folder on the bottom one.
      /─ (?:low|medium|high|ultra|smart|rush|free|deep) ─╮\s*$/,
      BUSY,
      APPROVAL,
      ERROR_CHOICE,
    ],
    // `⠋ amp - ~/proj` while it works; older versions `⠋ Fix it - amp - ~/proj`.
    titleMarkers: [/(?:^|\s)amp\s-\s/, /^\s*amp\s*$/],
    lines: [
      { name: 'waiting-for-approval', state: 'waiting', test: /Waiting for Approval/ },
      { name: 'approval', state: 'waiting', test: APPROVAL },
      { name: 'error-choice', state: 'failed', test: ERROR_CHOICE, detail: 'error' },
      // The border's status is drawn all the time, under everything: it decides only when no line
      // above tells more (an approval box stands above a border that still says `Running Tools`).
      { name: 'busy', state: 'working', test: BUSY, hint: true },
      ...SHARED_RULES,
      { name: 'input-box', state: 'idle', test: /^╰─{3,}.*─╯\s*$/, hint: true },
    ],
    titles: [
      { name: 'title-spinner', state: 'working', test: both(new RegExp(`^\\s*${BRAILLE}\\s`), /(?:^|\s)amp\s-\s/) },
    ],
    // ` ┃ fix the parser` once sent (a draft stays in the input box, `│ fix the parser │`); below it the
    // answer one column in, another sent prompt, or the input box.
    prompt: {
      line: /^ ┃ (\S.*)$/,
      answered: /^ \S|^╭/,
      // A draft: the input box's first row, above its empty ones and its bottom border (an approval
      // box's rows end in a border that says `Esc cancel`).
      draft: /^│ (\S.*)│$/,
      skip: /^│\s*│$/,
      inputEnd: /^╰(?!.*Esc cancel)/,
    },
  },
  process: { names: ['amp'], script: /(?:^|\/)amp(?:\.js)?$|@(?:sourcegraph|ampcode)\/(?:amp|cli)\// },
  template: { description: 'Amp', command: ['amp'], prompt: 'type' },
  env: { names: [], prefixes: ['AMP_'] },
};
