// The picker's input line: `[@agent] [--host NAME] [-n NAME] [--worktree[=BRANCH]] <intent>` starts
// a background job (on remote host NAME; named NAME, as `mado --bg -n NAME` does). Pure.
import { promptProblem } from '../jobs/templates.js';
import { noControl, printable } from '../shared/text.js';
import { HOST_NAME } from '../shared/types.js';

/** An agent's or a template's name (the daemon knows which exist, and lists them when one does not). */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,39}$/;

export interface DispatchLine {
  agent: string;
  worktree?: { branch?: string };
  /** The remote host the job starts on; none: this machine. */
  host?: string;
  /** The job's name (`-n NAME`, `-n "two words"`); none: from its prompt. */
  name?: string;
  intent: string;
}

/** The most characters of a job's name. */
const MAX_NAME = 200;

/** The line's job, or why it is none (said to the user as it is). */
export function parseDispatchLine(line: string, defaultAgent: string): DispatchLine | { error: string } {
  let rest = line.replace(/\0/g, '').trim();
  let agent = defaultAgent;
  let worktree: DispatchLine['worktree'];
  let host: string | undefined;
  let name: string | undefined;
  for (;;) {
    const m = /^(\S+)(?:\s+|$)/.exec(rest);
    if (!m) break;
    const word = m[1]!;
    if (word.startsWith('@')) {
      const name = word.slice(1);
      if (!AGENT_NAME.test(name)) return { error: `'@${printable(name, 40)}' names no agent` };
      agent = name;
    } else if (word === '--host' || word.startsWith('--host=')) {
      const value = word === '--host' ? /^--host\s+(\S+)/.exec(rest)?.[1] : word.slice('--host='.length);
      if (value === undefined || !HOST_NAME.test(value))
        return { error: `--host needs a host's name${value ? `, not '${printable(value, 40)}'` : ''}` };
      host = value;
      if (word === '--host') {
        rest = rest.slice(m[0].length).replace(/^\S+\s*/, '');
        continue;
      }
    } else if (word === '-n' || word === '--name' || word.startsWith('--name=')) {
      // One word, or words in quotes ("…" or '…'), after a space or an `=`.
      const after = word.startsWith('--name=') ? rest.slice('--name='.length) : rest.slice(word.length).trimStart();
      const v = /^(?:"([^"]*)"|'([^']*)'|(\S+))(?:\s+|$)/.exec(after);
      const value = v ? (v[1] ?? v[2] ?? v[3] ?? '').trim() : '';
      if (!v || value === '' || value.startsWith('-'))
        return {
          error: `${word.startsWith('--name') ? '--name' : '-n'} needs the job's name (in quotes when it has spaces)`,
        };
      if (value.length > MAX_NAME || noControl(value) !== value)
        return { error: `a job's name is at most ${MAX_NAME} characters, none a control character` };
      name = value;
      rest = after.slice(v[0].length);
      continue;
    } else if (word === '--worktree' || word === '-w') {
      worktree = {};
    } else if (word.startsWith('--worktree=')) {
      const branch = word.slice('--worktree='.length);
      if (branch === '' || branch.startsWith('-'))
        return { error: `--worktree=BRANCH needs a branch name, not '${branch.slice(0, 60)}'` };
      worktree = { branch };
    } else {
      break;
    }
    rest = rest.slice(m[0].length);
  }
  if (rest === '') return { error: 'say what the new agent should do' };
  const tooLarge = promptProblem(rest);
  if (tooLarge) return { error: tooLarge };
  return { agent, worktree, ...(host ? { host } : {}), ...(name ? { name } : {}), intent: rest };
}
