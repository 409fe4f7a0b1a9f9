#!/usr/bin/env bash
# Yields a private Neovim from a Debian suite (trixie -> 0.10, sid -> 0.12) without touching the system.
# Usage: scripts/get-nvim.sh SUITE   -> prints the path of a launcher script for that Neovim.
# Everything goes under .cache/nvim/<suite>/ (git-ignored); a second run reuses what is there.
set -euo pipefail

suite=${1:?usage: get-nvim.sh trixie|sid}
root=$(cd "$(dirname "$0")/.." && pwd)
dir="$root/.cache/nvim/$suite"
launcher="$dir/nvim"

# A launcher of this script's current shape (it names the bundled parsers) that runs is kept.
if [ -x "$launcher" ] && grep -q 'usr/lib/nvim' "$launcher" && "$launcher" --headless --clean +q >/dev/null 2>&1; then
  echo "$launcher"
  exit 0
fi

# The machine's own Debian mirror: the first URI of a main-archive source (not -security).
mirror_uri() {
  local f uri
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
    [ -n "$uri" ] && { echo "$uri"; return; }
  done
  if [ -f /etc/apt/sources.list ]; then
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /:\/\// && $i !~ /security/) { print $i; exit } }' /etc/apt/sources.list)
    [ -n "$uri" ] && { echo "$uri"; return; }
  fi
  echo "get-nvim: no Debian mirror found in /etc/apt" >&2
  exit 1
}

uri=$(mirror_uri)
apt_dir="$dir/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/etc"
: > "$apt_dir/status"
cat > "$apt_dir/etc/$suite.sources" <<SRC
Types: deb
URIs: $uri
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC

apt_opts=(
  -o "Dir::Etc::sourcelist=$apt_dir/etc/$suite.sources"
  -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache::archives=$apt_dir/archives"
  -o "Dir::Cache::pkgcache="
  -o "Dir::Cache::srcpkgcache="
  -o "APT::Install-Recommends=false"
  -o "Debug::NoLocking=true"
  -o "APT::Sandbox::User=root"
)

echo "get-nvim: fetching neovim from $suite into $dir" >&2
apt-get "${apt_opts[@]}" -qq update >&2
apt-get "${apt_opts[@]}" -qq -y --download-only install neovim >&2

rm -rf "$dir/root"
mkdir -p "$dir/root"
for deb in "$apt_dir"/archives/*.deb; do
  dpkg-deb -x "$deb" "$dir/root"
done

ld="$dir/root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"
[ -e "$ld" ] || ld="$dir/root/lib64/ld-linux-x86-64.so.2"
libs="$dir/root/usr/lib/x86_64-linux-gnu:$dir/root/lib/x86_64-linux-gnu"
runtime="$dir/root/usr/share/nvim/runtime"
# Debian's nvim finds its tree-sitter parsers (vimdoc: every :help needs it) in /usr/lib/nvim, a path
# built into it: here they are under root/, so the launcher puts that folder on 'runtimepath'.
cat > "$launcher" <<LAUNCH
#!/bin/sh
export VIMRUNTIME="$runtime"
exec "$ld" --library-path "$libs" "$dir/root/usr/bin/nvim" --cmd "set rtp+=$dir/root/usr/lib/nvim" "\$@"
LAUNCH
chmod +x "$launcher"
"$launcher" --version | head -1 >&2
echo "$launcher"
