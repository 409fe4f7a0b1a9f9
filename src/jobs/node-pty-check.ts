// Whether node-pty (which the background jobs run on) loads in this Node, and if not, what fixes
// it: a build for another Node (a version manager switched Node after `npm ci`) needs a rebuild.
import { createRequire } from 'node:module';
import path from 'node:path';

export interface NodePtyHealth {
  ok: boolean;
  /** What is wrong and the command that fixes it, for a person. */
  error?: string;
}

/** The plugin's root as the Neovim side's bundle sees it: it lives in <root>/rplugin/node/madohub/. */
const pluginRoot = (): string => path.resolve(__dirname, '..', '..', '..');

/** Words for a failure to load node-pty (pure, for tests). */
export function nodePtyProblem(message: string, nodeVersion: string, pluginRoot: string): string {
  const abi = /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(message);
  if (abi) {
    return `node-pty was built for another Node (module version ${abi[1]}; Node ${nodeVersion} needs ${abi[2]}): run \`npm rebuild node-pty\` in ${pluginRoot}`;
  }
  if (/Cannot find module 'node-pty'|MODULE_NOT_FOUND/.test(message)) {
    return `node-pty is not installed: run \`npm ci\` in ${pluginRoot}`;
  }
  const first = message.split('\n')[0]!.slice(0, 300);
  return `node-pty does not load in Node ${nodeVersion} (${first}): run \`npm rebuild node-pty\` in ${pluginRoot}`;
}

/** Whether node-pty loads here; `root` is MadoHub's folder, named in the fix (the Neovim side's by default). */
export function checkNodePty(root: string = pluginRoot()): NodePtyHealth {
  try {
    createRequire(__filename)('node-pty');
    return { ok: true };
  } catch (err) {
    return {
      ok: false,
      error: nodePtyProblem(err instanceof Error ? err.message : String(err), process.version, root),
    };
  }
}
