// The Lua side's calls of operations (src/ops/) by name: run here as `mado NAME` runs them, or by
// the bridge of the remote host the row is of (its result checked by the operation's schema).
import { quietIo } from '../jobs/client/daemon.js';
import type { Remotes } from '../jobs/remote/remotes.js';
import { opNamed } from '../ops/index.js';
import { safeText } from '../shared/text.js';
import type { FromLua } from './from-lua.js';
import { MADO } from './mado-script.js';

export async function opCall(
  m: FromLua<'run'>,
  remotes?: Remotes,
  env: NodeJS.ProcessEnv = process.env,
): Promise<unknown> {
  const op = opNamed(m.name);
  if (!op) throw new Error(`no operation '${safeText(m.name)}'`);
  // Lua's empty table comes as an empty list.
  const args = Array.isArray(m.args) ? {} : m.args;
  if (!m.host || !remotes?.names().includes(m.host)) {
    // A job typed `NAME:ID` for a host that is none is this machine's job of that name (`fix: parser`).
    const named = m.host && typeof args.id === 'string' ? { ...args, id: `${m.host}:${args.id}` } : args;
    return op.run({ io: quietIo(env, MADO) }, named);
  }
  const result = await remotes.link(m.host).run(op.name, args, op.waitMs + 5000);
  const problem = op.resultProblem(result);
  if (problem) throw new Error(`${m.host} answered ${op.name} with no result of its: ${problem}`);
  return result;
}
