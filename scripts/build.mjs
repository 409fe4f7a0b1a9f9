// Bundles the Node side with esbuild: the Neovim entry and the `mado` CLI.
// Native modules (node-pty) stay external and load from node_modules at run time.
import { writeAsciiOnly } from './ascii.mjs';
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { writeAgentRegistry } from './agent-registry.mjs';
import { writeOpRegistry } from './op-registry.mjs';
import { writeHelpTags } from './helptags.mjs';
import { writeRegistry } from './registry.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: ['node-pty'],
  logLevel: 'warning',
  absWorkingDir: root,
  sourcemap: 'linked',
  define: {
    MADOHUB_VERSION: JSON.stringify(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version),
    // ES modules bundled (ps-list) read import.meta.url, which a CommonJS bundle has not: the bundle's own.
    'import.meta.url': '__madohubImportMetaUrl',
  },
  banner: { js: "const __madohubImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
};

if (process.argv.includes('--bench')) {
  // The benchmark drives Neovim with the test harness; bundled on demand, never shipped.
  await build({
    ...common,
    entryPoints: ['scripts/bench.ts'],
    outfile: '.cache/bench.cjs',
    external: ['node-pty', 'neovim'],
  });
  process.exit(0);
}

// The list of agent modules: every file of src/agents/ that exports one (a new agent is its file).
writeAgentRegistry(path.join(root, 'src', 'agents'));
// The list of operations: every file of src/ops/ that defines one (a new operation is its file).
writeOpRegistry(path.join(root, 'src', 'ops'));

// The doc's lists of agents, of state words and of operations, and the Lua side's list of states, from
// the code (bundled to run here).
await build({
  ...common,
  entryPoints: ['scripts/doc-agents.ts'],
  outfile: '.cache/doc-agents.cjs',
  sourcemap: false,
  external: ['node-pty', 'neovim', 'chokidar', 'ps-list', '@xterm/headless'],
});
{
  const { pendingLua, statesLua, withAgentList, withOpList, withStateWords } = createRequire(import.meta.url)(
    path.join(root, '.cache', 'doc-agents.cjs'),
  );
  // The states and their facts for the Lua side (it keeps no list of its own).
  writeRegistry(path.join(root, 'lua', 'madohub', 'states.lua'), statesLua());
  // Why a reply waits, in words: Node sends the codes.
  writeRegistry(path.join(root, 'lua', 'madohub', 'pending.lua'), pendingLua());
  const docFile = path.join(root, 'doc', 'madohub.txt');
  const doc = readFileSync(docFile, 'utf8');
  const written = withOpList(withStateWords(withAgentList(doc)));
  if (written !== doc) writeFileSync(docFile, written);
}

// `:help madohub` after any install (plugin managers run :helptags themselves; a clone by hand does not).
writeHelpTags(path.join(root, 'doc'));

/**
 * How a bundle is made smaller: `all` (names too), `keep-names` (blanks, comments and syntax only: its
 * stack traces keep the code's names; V8 holds a script's whole source as long as the process lives).
 */
const SHRINK = {
  all: { minify: true },
  'keep-names': { minifyWhitespace: true, minifySyntax: true },
};
const bundles = [
  { entry: 'src/bin/nvim.ts', outfile: 'rplugin/node/madohub/index.js', shrink: 'keep-names' },
  // Every `mado` and the daemon.
  { entry: 'src/bin/mado.ts', outfile: 'dist/mado.js', shrink: 'keep-names' },
  // `mado agents`' fast path: minified, as small as its work allows (Node parses less before it lists).
  { entry: 'src/bin/mado-agents.ts', outfile: 'dist/mado-agents.js', shrink: 'all' },
  // A job's host (and the spare): only what a host runs, parsed and kept once per job (its source alone
  // was 0.6 MiB of each host's heap, 0.4 MiB so).
  { entry: 'src/bin/mado-host.ts', outfile: 'dist/mado-host.js', shrink: 'keep-names' },
];
await Promise.all(
  bundles.map(async (b) => {
    await build({ ...common, entryPoints: [b.entry], outfile: b.outfile, ...(b.shrink ? SHRINK[b.shrink] : {}) });
    writeAsciiOnly(path.join(root, b.outfile));
  }),
);
