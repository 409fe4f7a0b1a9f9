#!/usr/bin/env bash
# The whole test suite again on the current LTS Node (24), fetched from the npm registry into
# .cache/: the Node that runs the tests, `mado`, its daemon and hosts, and the plugin's Node process.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
node=$(bash "$root/scripts/get-node.sh" 24)
export PATH="$(dirname "$node"):$PATH"
echo "test-lts: $(node --version) ($node)" >&2
exec node "$root/node_modules/vitest/vitest.mjs" run "$@"
