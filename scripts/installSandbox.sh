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
source "$(dirname "${BASH_SOURCE[0]}")/lib/apt.sh"
declare -A why=(
  [bubblewrap]="the sandbox sandboxed MCP servers run in (sandboxEnabled, plangate run --sandbox; src/mcp/sandbox.ts)"
  [socat]="carries a sandboxed server's allowed network traffic out of its sandbox"
  [ripgrep]="finds the files a sandboxed server must never write (such as .git/hooks) before it starts"
)
specs=()
for pkg in "${missing[@]}"; do specs+=("$pkg=${why[$pkg]}"); done
log=$(mktemp)
apt_install sandbox "$log" "${specs[@]}"
rm -f "$log"
echo "[sandbox] installed ${missing[*]}"
