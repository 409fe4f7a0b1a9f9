#!/usr/bin/env node
'use strict';
// The `mado` command. The code is bundled by `npm run build` into dist/mado.js.
const path = require('node:path');
const fs = require('node:fs');
const built = path.join(__dirname, '..', 'dist', 'mado.js');
if (!fs.existsSync(built)) {
  process.stderr.write('mado: not built yet; run `npm ci && npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(2);
}
require(built);
