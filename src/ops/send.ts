// `mado send ID [TEXT…]`: a reply to a job's agent, pasted and entered as one paste, or, while the
// agent works (or waits on a question, when asked to wait for menus), kept by its host until it may go.
import { resolveId, sendToJob } from '../jobs/client/jobs.js';
import { MAX_REPLY_CHARS } from '../jobs/protocol/host-requests.js';
import { parseArgs } from '../shared/args.js';
import { bool, isObj, oneOf, optional, strMax } from '../shared/checks.js';
import { shortIdCheck } from '../shared/fleet-id.js';
import { asPending, PENDING, PENDING_WORDS } from '../shared/pending.js';
import type { Pending } from '../shared/pending.js';
import { defineOp } from './op.js';

/** Why a reply waits, as its job's host says it: a code (an older host's: its words). */
const pendingCheck = oneOf(...PENDING, ...PENDING.map((p) => PENDING_WORDS[p]));

/** How each kind of waiting is said to a person at a terminal. */
const SAID: Record<Pending, (short: string) => string> = {
  '': (short) => `sent to ${short}`,
  queued: (short) => `queued for ${short}: sent when its turn ends`,
  'held-menu': (short) =>
    `held for ${short}: it waits on a question; answer it (mado answer ${short} N, or in mado attach ${short}), then this is sent`,
  'held-draft': (short) => `${PENDING_WORDS['held-draft']} for ${short}: sent once its input line is empty`,
  'held-typing': (short) => `${PENDING_WORDS['held-typing']} for ${short}: sent once its input line is empty`,
  sending: (short) => `sending to ${short}`,
};

export const send = defineOp({
  name: 'send',
  usage: 'send ID [TEXT…]',
  summary:
    "Reply to a job's agent (TEXT, else standard input): pasted and entered at once, or, while the agent works, when its turn ends; while it waits (a question, a menu), once that is answered.",
  args: { id: strMax(200), text: optional(strMax(MAX_REPLY_CHARS)), waitMenus: optional(bool) },
  byPerson: true,
  // Its text from standard input when none is on the line.
  stdin: (argv) => (argv.length === 1 ? {} : undefined),
  result: (v): string | null =>
    isObj(v) && shortIdCheck(v.short) === null && pendingCheck(v.pending) === null ? null : '{ short, pending }',
  fromArgv: (argv) => {
    const args = parseArgs(argv, [], ['ID', 'TEXT...']);
    const words = args.positional.slice(1);
    // Text is no answer to a question: it waits until that is answered (mado answer), as a route's does.
    return { id: args.positional[0] ?? '', ...(words.length > 0 ? { text: words.join(' ') } : {}), waitMenus: true };
  },
  run: async ({ io }, args) => {
    const short = resolveId(io, args.id);
    // The words given, else standard input (a NUL cannot be sent: it is dropped, with a notice).
    let text = args.text ?? (await io.stdin()) ?? '';
    if (text.includes('\0')) {
      text = text.replaceAll('\0', '');
      io.err('mado: NUL bytes were dropped from the reply\n');
    }
    const pending = await sendToJob(io, short, text.replace(/\n+$/, ''), { waitMenus: args.waitMenus === true });
    return { short, pending: asPending(pending) };
  },
  show: (sent) => `${SAID[asPending(sent.pending)](sent.short)}\n`,
});
