#!/usr/bin/env bash
# The README's test command (`npm test`): installs what is missing on a fresh machine, then runs every test —
# type check, lint, unit and integration tests (real MCP servers over stdio and HTTP), and the end-to-end tests
# in a real VS Code (code-server in headless Chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
step() { printf '\n== %s (+%ss)\n' "$*" "$(( $(date +%s) - t0 ))"; }

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
  step "end-to-end tests in a real VS Code"; npm run test:e2e
fi
step "all tests passed"
