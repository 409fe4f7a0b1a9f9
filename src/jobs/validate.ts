import { AGENTS } from '../detect/types.js';
import { PROTO, protoMismatch } from './protocol.js';
import type { JobState } from './types.js';
import { MAX_DETAIL, MAX_INTENT, SHORT_ID, UUID } from './types.js';

type Check = (v: unknown) => string | null;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str: Check = (v) => (typeof v === 'string' ? null : 'a string');
const strMax =
  (max: number): Check =>
  (v) =>
    typeof v === 'string' && v.length <= max ? null : `a string of at most ${max} characters`;
const num: Check = (v) => (typeof v === 'number' && Number.isFinite(v) ? null : 'a number');
const bool: Check = (v) => (typeof v === 'boolean' ? null : 'true or false');
const orNull =
  (c: Check): Check =>
  (v) =>
    v === null ? null : c(v) && `${c(v)} or null`;
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? null : `one of ${values.join('|')}`;
const pattern =
  (re: RegExp, what: string): Check =>
  (v) =>
    typeof v === 'string' && re.test(v) ? null : what;
const strings: Check = (v) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? null : 'a list of strings');
const stringMap: Check = (v) =>
  isObj(v) && Object.values(v).every((x) => typeof x === 'string') ? null : 'a table of strings';
const template: Check = (v) =>
  isObj(v) && typeof v.name === 'string' && typeof v.description === 'string' && typeof v.initialPrompt === 'string'
    ? null
    : '{name, description, initialPrompt}';
const block: Check = (v) =>
  isObj(v) &&
  Array.isArray(v.questions) &&
  v.questions.every((q) => isObj(q) && typeof q.text === 'string' && strings(q.options) === null)
    ? null
    : '{questions: [{text, options}]}';

/** Every field of JobState and what it must be. */
const SCHEMA: Record<keyof JobState, Check> = {
  proto: num,
  short: pattern(SHORT_ID, '8 lowercase hex digits'),
  sessionId: pattern(UUID, 'a UUID'),
  createdAt: num,
  updatedAt: num,
  firstTerminalAt: orNull(num),
  template,
  agent: oneOf(...AGENTS),
  intent: strMax(MAX_INTENT),
  name: str,
  nameSource: oneOf('user', 'auto'),
  detail: strMax(MAX_DETAIL),
  color: str,
  state: oneOf('running', 'stopped', 'errored', 'done'),
  tempo: oneOf('active', 'idle', 'blocked'),
  needs: orNull(str),
  block: orNull(block),
  suggestedReply: orNull(str),
  output: orNull(str),
  resumeSessionId: orNull(str),
  sortOrder: num,
  stateSortOrder: num,
  pinned: bool,
  cwd: str,
  originCwd: str,
  worktreePath: orNull(str),
  worktreeBranch: orNull(str),
  worktreeHookBased: bool,
  children: strings,
  source: oneOf('shell', 'slash', 'fleet', 'spare', 'respawn', 'left_arrow'),
  respawnFlags: strings,
  env: stringMap,
};

export const JOB_FIELDS = Object.keys(SCHEMA) as (keyof JobState)[];

export type Validated = { ok: true; job: JobState } | { ok: false; error: string };

/** Checks a parsed state.json: the protocol version first, then every field. */
export function validateJob(value: unknown): Validated {
  if (!isObj(value)) return { ok: false, error: 'not a JSON object' };
  if (typeof value.proto === 'number' && value.proto > PROTO) {
    return { ok: false, error: protoMismatch('this job file', value.proto) };
  }
  for (const field of JOB_FIELDS) {
    if (!(field in value)) return { ok: false, error: `field '${field}' is missing` };
    const problem = SCHEMA[field](value[field]);
    if (problem) return { ok: false, error: `field '${field}' must be ${problem}` };
  }
  if (value.proto !== PROTO) return { ok: false, error: protoMismatch('this job file', value.proto) };
  return { ok: true, job: value as unknown as JobState };
}
