// Kilo Code CLI (@kilocode/cli 7.7): a fork of OpenCode. Its screens (read from 7.7.7 against a local
// mock of an OpenAI-compatible API, a provider of its kilo.json, at 120×40, 80×24 and 60×20) are
// OpenCode's, with its own words: the `Code` agent, `Tell Kilo what to do differently`, the title
// `Kilo CLI | <session title>`, `kilo -s <session>` printed as it exits. Its session store is OpenCode's
// (`<data>/kilo/kilo.db`, SQLite, the same tables), read the same way for a terminal and a job alike:
// its server's event stream asks a password of its own (401, KILO_SERVER_PASSWORD), so a job does not
// follow it as an OpenCode job does.
import {
  OPENCODE_FAMILY_SCREEN,
  OPENCODE_PRICES,
  opencodeUsageReader,
  storeHealth,
  storeRecords,
  xdgDataDir,
} from './opencode.js';
import type { AgentModule } from './types.js';

/** Its session store, in its data folder (`$XDG_DATA_HOME/kilo`). */
export const KILO_DB = 'kilo.db';

export const kilo: AgentModule = {
  health: () => storeHealth('Kilo Code CLI'),
  id: 'kilo',
  displayName: 'Kilo Code CLI',
  bracketedPaste: true,
  screen: {
    id: 'kilo',
    // Its own words only: the rows it shares with OpenCode tell no agent apart (its title does).
    markers: [/Tell Kilo what to do differently/, /^\s*kilo -s ses_\w+\s*$/],
    titleMarkers: [/^Kilo CLI\b/],
    ...OPENCODE_FAMILY_SCREEN,
  },
  // `node …/.bin/kilo` (its launcher), then its own binary `…/@kilocode/cli/bin/.kilo`.
  process: { names: ['kilo', '.kilo', 'kilocode'], script: /(?:^|\/)\.?kilo(?:code)?$|@kilocode\/cli\// },
  template: {
    description: 'Kilo Code CLI',
    command: ['kilo'],
    prompt: 'type',
    resume: ['--session', '{id}'],
    continue: ['--continue'],
    fork: ['--fork'],
  },
  env: { names: [], prefixes: ['KILO_'] },
  // What it spends: its session's totals and cost in its store, as OpenCode's.
  usage: { reader: opencodeUsageReader, prices: OPENCODE_PRICES },
  records: storeRecords((env) => ({ dir: xdgDataDir('kilo', env), db: KILO_DB })),
};
