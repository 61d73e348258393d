#!/usr/bin/env bash
# The README's test command (`npm test`): installs what is missing on a fresh machine, then runs every test —
# type check, lint, unit and integration tests (real MCP servers over stdio and HTTP), and the end-to-end tests
# in a real VS Code (code-server in headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { printf '\n== %s (+%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }

# The end-to-end tools (Chromium, Node 24, code-server with its native modules: two to five minutes on a new machine)
# install in the background, from the start (they need nothing of the project's own node_modules), while the
# project is installed, built and unit-tested; the e2e step waits for them.
# Debian packages first, in the foreground, so that what apt-get installs as root (and why) is said on this console,
# and apt never runs twice at once: the sandboxed servers' tools (bubblewrap, socat, ripgrep), then what the
# end-to-end tests add (chromium, libkrb5-dev). Each installs only what is missing.
step "system packages"
bash scripts/installSandbox.sh
[ "${PLANGATE_SKIP_E2E:-}" = 1 ] || bash e2e/setup.sh --system-packages
setup_pid=
if [ "${PLANGATE_SKIP_E2E:-}" != 1 ]; then
  mkdir -p .e2e/logs
  step "end-to-end tools: setting up in the background (log: .e2e/logs/setup.log)"
  bash e2e/setup.sh > .e2e/logs/setup.log 2>&1 &
  setup_pid=$!
  trap '[ -n "$setup_pid" ] && kill "$setup_pid" 2>/dev/null; true' EXIT
fi
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  step "npm ci"
  npm ci --no-audit --no-fund
fi
step "build";      npm run build
step "type check"; npm run check
step "lint";       npm run lint
step "unit and integration tests"; npm run test:unit
if [ "${PLANGATE_SKIP_E2E:-}" = 1 ]; then
  step "end-to-end tests skipped (PLANGATE_SKIP_E2E=1)"
else
  step "end-to-end tools: waiting for the set-up"
  if ! wait "$setup_pid"; then setup_pid=; cat .e2e/logs/setup.log; echo "e2e/setup.sh failed (log above)" >&2; exit 1; fi
  setup_pid=
  cat .e2e/logs/setup.log
  step "end-to-end tests in a real VS Code"; npm run test:e2e
fi
step "all tests passed"
