#!/usr/bin/env node
'use strict';
// The `mado` command. The code is bundled by `npm run build` into dist/mado.js.
const path = require('node:path');
const fs = require('node:fs');
// `mado agents` must be fast: it loads a small bundle of its own, not the whole CLI.
const entry = process.argv[2] === 'agents' ? 'mado-agents.js' : 'mado.js';
const built = path.join(__dirname, '..', 'dist', entry);
if (!fs.existsSync(built)) {
  process.stderr.write('mado: not built yet; run `npm ci && npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(2);
}
require(built);
