// The layers of src/, top to bottom, checked by `npm run deps` (part of `npm test`):
//
//   bin/                       entry points: the Neovim-side process, `mado`, `mado agents`
//   nvim/  cli/  daemon/       the Neovim side, the command line, the daemon (none imports another)
//   ops/                       the operations, one file each, and their registry (issue 28)
//   fleet/                     every agent of every kind, one list
//   routes/  jobs/             routes (which may use jobs), background jobs (which may not use routes)
//   state/                     each terminal's state, from its screen and its records
//   agents/                    one file per agent, and the registry
//   detect/  records/  proc/   the pure screen engine; record files; /proc;
//   review/                    the turns' records in shadow git repositories (issue 29)
//   usage/                     what the agents spend: counting and pricing the readings (issue 30)
//   shared/                    types and helpers every layer uses
//
// A file imports only from its own layer or those below it, type-only imports included, and no
// import forms a cycle.
const LAYERS = [
  ['shared'],
  ['detect', 'records', 'proc', 'review', 'usage'],
  ['agents'],
  ['state'],
  ['jobs', 'routes'],
  ['fleet'],
  ['ops'],
  ['nvim', 'cli', 'daemon'],
  ['bin'],
];

const dirs = (names) => `^src/(?:${names.join('|')})/`;

const upward = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `no-upward-from-${layer.join('-')}`,
  comment: `${layer.join(', ')} may import only from ${LAYERS.slice(0, i + 1)
    .flat()
    .join(', ')}`,
  severity: 'error',
  from: { path: dirs(layer) },
  to: { path: dirs(LAYERS.slice(i + 1).flat()) },
}));

/** Imports within a layer that would make one part lean on its sibling the wrong way. */
const sideways = [
  ['jobs', ['routes'], 'jobs know nothing of routes (the daemon and the Neovim side put the two together)'],
  ['detect', ['records', 'proc'], 'the detect engine is pure: it takes rules and screens as arguments'],
  ['proc', ['detect', 'records'], 'proc reads /proc and nothing else'],
  [
    'usage',
    ['detect', 'records', 'proc', 'review'],
    'usage counts and prices the readings it is given: it reads no record',
  ],
  ['nvim', ['cli', 'daemon'], 'the Neovim side, the CLI and the daemon each stand on the layers below'],
  ['cli', ['nvim', 'daemon'], 'the Neovim side, the CLI and the daemon each stand on the layers below'],
  ['daemon', ['nvim', 'cli'], 'the Neovim side, the CLI and the daemon each stand on the layers below'],
].map(([from, to, comment]) => ({
  name: `no-${from}-to-${to.join('-')}`,
  comment,
  severity: 'error',
  from: { path: dirs([from]) },
  to: { path: dirs(to) },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'no import cycle, type-only imports included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-outside-layers',
      comment: 'every file of src/ belongs to a layer',
      severity: 'error',
      from: { path: '^src/', pathNot: dirs(LAYERS.flat()) },
      to: {},
    },
    {
      name: 'pure-detect',
      comment: 'the detect engine is pure: no Node module, no package',
      severity: 'error',
      from: { path: dirs(['detect']) },
      to: { dependencyTypes: ['core', 'npm'] },
    },
    ...upward,
    ...sideways,
  ],
  options: {
    // @swc/core parses TypeScript here (TypeScript 7's compiler has no JavaScript API).
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?:node_modules|dist|rplugin)/' },
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
