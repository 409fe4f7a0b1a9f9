// Checks a parsed job file before anything reads it: a file anyone may have edited.
import { tallyCheck } from '../usage/tally.js';
import { AGENT_ID } from '../shared/types.js';
import type { Check } from '../shared/checks.js';
import {
  bool,
  holdsCheck,
  int,
  isObj,
  num,
  oneOf,
  optional,
  orNull,
  pattern,
  recordGuard,
  shape,
  str,
  strings,
  strMax,
} from '../shared/checks.js';
import { protoMismatch } from './protocol/codec.js';
import type { JobFile, JobQuestion } from './types.js';
import { JOB_ORIGINS, JOB_STATUSES, JOB_TEMPOS, MAX_INTENT, JOB_FILE_VERSION, SHORT_ID, UUID } from './types.js';
import { MAX_DETAIL } from '../shared/text.js';
import { JOB_STATE_SOURCES } from '../shared/types.js';

const template = shape({ name: str, description: str, initialPrompt: str }, '{name, description, initialPrompt}');
const block: Check<{ questions: JobQuestion[] }> = (v) =>
  isObj(v) &&
  Array.isArray(v.questions) &&
  v.questions.every((q) => isObj(q) && typeof q.text === 'string' && strings(q.options) === null)
    ? null
    : '{questions: [{text, options}]}';

/** Every field of JobFile and what it must be: what passes them is a JobFile (those added later filled in). */
const SCHEMA = {
  proto: num,
  short: pattern(SHORT_ID, '8 lowercase hex digits'),
  sessionId: pattern(UUID, 'a UUID'),
  createdAt: num,
  updatedAt: num,
  firstTerminalAt: orNull(num),
  template,
  agent: pattern(AGENT_ID, 'an agent id'),
  intent: strMax(MAX_INTENT),
  name: str,
  nameSource: oneOf('user', 'auto'),
  detail: strMax(MAX_DETAIL),
  color: str,
  status: oneOf(...JOB_STATUSES),
  tempo: oneOf(...JOB_TEMPOS),
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
  origin: oneOf(...JOB_ORIGINS),
  respawnFlags: strings,
  problem: orNull(strMax(MAX_DETAIL)),
  // Added after version 2's first files: a file without it has no reply waiting.
  pendingReply: optional(orNull(strMax(40))),
  // Added with the agents' hooks: a file without it has its state from the screen.
  stateSource: optional(orNull(oneOf(...JOB_STATE_SOURCES))),
  // Added with the turn's end counted: a file without it (an older host's) has counted none.
  turnsEnded: optional(num),
  turnChanged: optional(orNull(int(0, Number.MAX_SAFE_INTEGER))),
  // Added with usage (issue 30): a file without it has none counted; one that is none (a file anyone
  // may have edited) is read as none, the job still listed.
  usage: (() => null) satisfies Check<unknown>,
} satisfies Record<keyof JobFile, Check>;

const guard = recordGuard(SCHEMA);

/** The fields of a job file, as the schema names them. */
export const JOB_FIELDS: readonly string[] = Object.keys(SCHEMA);

/** A version 1 job file (state.json) in version 2's names: `state` is `status`, `source` is `origin`; `env` goes. */
function fromVersion1(v: Record<string, unknown>): Record<string, unknown> {
  const { state, source, env: _env, ...rest } = v;
  return { ...rest, proto: JOB_FILE_VERSION, status: state, origin: source, problem: null };
}

export type Validated = { ok: true; job: JobFile } | { ok: false; error: string };

/**
 * Checks a parsed job file: the version first, then every field. The job returned holds the
 * fields of JobFile only (an old file's `env` is dropped here).
 */
export function validateJob(input: unknown): Validated {
  if (!isObj(input)) return { ok: false, error: 'not a JSON object' };
  const value = input.proto === 1 ? fromVersion1(input) : input;
  if (typeof value.proto === 'number' && value.proto > JOB_FILE_VERSION) {
    return { ok: false, error: protoMismatch('this job file', value.proto, JOB_FILE_VERSION) };
  }
  const fields = guard(value);
  if (typeof fields === 'string') return { ok: false, error: fields };
  if (fields.proto !== JOB_FILE_VERSION)
    return { ok: false, error: protoMismatch('this job file', fields.proto, JOB_FILE_VERSION) };
  const job: JobFile = {
    ...fields,
    pendingReply: fields.pendingReply ?? null,
    stateSource: fields.stateSource ?? null,
    turnsEnded: fields.turnsEnded ?? 0,
    turnChanged: fields.turnChanged ?? null,
    usage: holdsCheck(tallyCheck, fields.usage) ? fields.usage : null,
  };
  return { ok: true, job };
}
