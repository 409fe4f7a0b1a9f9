#!/usr/bin/env bash
# `npm run demo`: a Neovim with MadoHub and two fixture agents in splits whose states change by
# themselves, so that a newcomer sees the winbar at work without any agent installed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

nvim=""
if command -v nvim >/dev/null 2>&1; then
  v=$(nvim --version | head -1 | sed -n 's/^NVIM v0\.\([0-9]*\).*/\1/p')
  if [ -n "$v" ] && [ "$v" -ge 10 ]; then nvim=nvim; fi
fi
if [ -z "$nvim" ]; then
  if [ -x "$root/.cache/nvim/sid/nvim" ]; then
    echo "demo: the Neovim on PATH is missing or older than 0.10; using the 0.12 in .cache/" >&2
  else
    echo "demo: the Neovim on PATH is missing or older than 0.10; fetching 0.12 into .cache/ (once)" >&2
  fi
  nvim=$(bash "$root/scripts/get-nvim.sh" sid)
fi
if [ ! -t 1 ]; then
  echo "demo: run it in a terminal (it opens Neovim)" >&2
  exit 2
fi
args=(--clean --cmd "set rtp^=$root" -c "luafile $root/scripts/demo.lua")
if [ "$nvim" = nvim ]; then
  exec nvim "${args[@]}"
fi
# A Neovim run through its own loader cannot re-execute itself as the TUI's server
# (/proc/self/exe is the loader), so start the server headless and attach a remote UI to it.
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$nvim" --headless --listen "$dir/nvim.sock" "${args[@]}" &
for _ in $(seq 100); do [ -S "$dir/nvim.sock" ] && break; sleep 0.05; done
"$nvim" --remote-ui --server "$dir/nvim.sock"
wait || true
