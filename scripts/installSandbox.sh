#!/usr/bin/env bash
# Installs what sandboxed MCP servers need on Linux (src/mcp/sandbox.ts): bubblewrap, socat and ripgrep, from
# Debian's packages, as e2e/setup.sh installs chromium. Idempotent: apt-get runs only when one is missing. Elsewhere
# (macOS has Seatbelt) it does nothing.
set -euo pipefail
[ "$(uname -s)" = Linux ] || exit 0
missing=()
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v socat >/dev/null || missing+=(socat)
command -v rg >/dev/null || missing+=(ripgrep)
((${#missing[@]})) || { echo "[sandbox] bubblewrap, socat and ripgrep already installed"; exit 0; }
command -v apt-get >/dev/null || { echo "[sandbox] missing ${missing[*]} and no apt-get here: install them, then try again." >&2; exit 1; }
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else echo "[sandbox] need root to run: $* — run it yourself, then try again." >&2; exit 1
  fi
}
log=$(mktemp)
as_root apt-get update -qq > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >> "$log" 2>&1 \
  || { tail -30 "$log"; exit 1; }
rm -f "$log"
echo "[sandbox] installed ${missing[*]}"
