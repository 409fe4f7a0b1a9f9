// Where the user's configuration lives, by the XDG base directory rules.
import { homedir } from 'node:os';
import path from 'node:path';

/** `$XDG_CONFIG_HOME`, else `~/.config`. */
export function configHome(env: NodeJS.ProcessEnv = process.env): string {
  return env.XDG_CONFIG_HOME || path.join(env.HOME || homedir(), '.config');
}

/** The folder MadoHub keeps its state in: `$XDG_STATE_HOME/madohub`, else `~/.local/state/madohub`. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_STATE_HOME || path.join(env.HOME || homedir(), '.local', 'state'), 'madohub');
}

/** Where the review keeps its shadow repositories: `$MADOHUB_REVIEW_DIR`, else `<state folder>/review`. */
export function reviewDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.MADOHUB_REVIEW_DIR || path.join(stateDir(env), 'review');
}
