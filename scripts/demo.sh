#!/usr/bin/env bash
# `npm run demo`: Plangate in a real VS Code (code-server) in your browser, with a demo workspace whose
# .vscode/mcp.json starts the project's fixture MCP server (plans, step tools, collect-mode forms).
# On a fresh machine it installs everything first: root `npm ci` (when node_modules is missing or older than
# package-lock.json), build, package, then e2e/setup.sh (Chromium, libkrb5-dev, Node 24, code-server).
# State lives in .demo/ (profile with the extension installed, workspace, logs); it survives restarts.
# PLANGATE_DEMO_HOME moves it (the end-to-end suite's smoke run keeps its own in its run folder).
#   npm run demo                 serve on http://127.0.0.1:$PORT (default 8080, or the next free port) until Ctrl-C
#   npm run demo -- --smoke      start, check /healthz, then in a browser that Plangate activated (status bar) and
#                                the demo server runs (Servers view); print OK and exit
#   npm run demo -- --reset      start over with a fresh .demo/ workspace and profile
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../e2e/lib/env.sh"
E2E_LOG_TAG=demo

smoke=0 reset=0
for arg in "$@"; do
  case $arg in
    --smoke) smoke=1 ;;
    --reset) reset=1 ;;
    -h|--help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "[demo] unknown argument $arg (try --help)" >&2; exit 2 ;;
  esac
done

cd "$PLANGATE_ROOT"
DEMO_HOME=${PLANGATE_DEMO_HOME:-$PLANGATE_ROOT/.demo}
WS=$DEMO_HOME/workspace
PROFILE=$DEMO_HOME/profile
t_all=$(date +%s)
[ "$reset" = 1 ] && rm -rf "$DEMO_HOME"
mkdir -p "$DEMO_HOME/logs"

# 1. the project itself (system Node), then the code-server tools (Node 24)
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  e2e_step "npm ci"
  npm ci --no-audit --no-fund > "$DEMO_HOME/logs/npm-ci.log" 2>&1 || { tail -30 "$DEMO_HOME/logs/npm-ci.log"; exit 1; }
  e2e_step_done
fi
e2e_step "build and package"
# Built again unless plangate.vsix is newer than every source it is made of (after `npm test`, say).
if [ -f plangate.vsix ] && [ -d dist ] && [ -z "$(find src media schema fixture package.json esbuild.mjs -newer plangate.vsix -type f 2>/dev/null | head -n 1)" ]; then
  e2e_step_done "plangate.vsix is up to date"
else
  { npm run build && npm run package; } > "$DEMO_HOME/logs/build.log" 2>&1 || { tail -30 "$DEMO_HOME/logs/build.log"; echo "[demo] build failed (log: $DEMO_HOME/logs/build.log)" >&2; exit 1; }
  e2e_step_done "plangate.vsix"
fi
bash "$E2E_DIR/setup.sh"

e2e_isolate_env "$DEMO_HOME"
export PATH="$NODE24_DIR/bin:$PATH"   # code-server runs on Node 24; the fixture server runs on it too

# 2. the demo workspace: created once (your edits stay), mcp.json rewritten every time (it holds absolute paths)
if [ ! -f "$WS/README.md" ]; then
  mkdir -p "$WS/src/modules/billing" "$WS/.vscode"
  cat > "$WS/README.md" <<'MD'
# Plangate demo workspace

This folder's `.vscode/mcp.json` starts one MCP server, **demo** (Plangate's fixture server, over stdio). Its
plan tools answer with MCPFlow `orchestrated_plan` envelopes; Plangate shows each plan for review before anything runs.
Every call the server receives is appended to `../calls.jsonl` (beside this folder, so that it is not one of the
plans' file changes), so you can check what really ran.

Things to try:

1. Open the **Plangate** view in the activity bar. **Servers** lists `demo` and its tools.
2. Run **Plangate: Call Tool…** (F1), pick `demo` → `plan_scaffold`, and **Call**. The plan panel shows the
   instruction, the safety block (writes code, touches `src/modules/payroll/**`) and the steps.
   **Approve and run**: the files appear under `src/modules/payroll/`. Then **Revert** puts everything back.
3. `plan_component` without a componentId: the server asks for one (a form). Answer it and the planning tool is
   called again with your answer merged in.
4. `plan_failing`: step 2 fails, step 3 never runs. Try **Retry step**, **Skip step** or **Revert**.
5. `plan_confirm`: a step that needs its own confirmation, and a question Plangate answers locally.
6. `new_model_app` with `{"model": "Contact", "mode": "form"}`: a collect-mode form. Fill it,
   **Stage for review**, look at it in the **Staged** view, then **Submit** (or **Discard**).
7. The status bar item (bottom left) always says where the workflow is: idle, awaiting approval, running, …
   **Plangate: Show Log** shows every call and decision.
MD
  cat > "$WS/src/modules/billing/invoice.ts" <<'TS'
export interface Invoice {
  id: string;
  amountCents: number;
}

export function total(invoices: Invoice[]): number {
  return invoices.reduce((sum, i) => sum + i.amountCents, 0);
}
TS
  cat > "$WS/src/modules/README.md" <<'MD'
Feature modules live here, one folder each. `plan_scaffold` adds `payroll/`.
MD
  cat > "$WS/package.json" <<'JSON'
{ "name": "plangate-demo-workspace", "private": true, "version": "0.0.0" }
JSON
fi
mkdir -p "$WS/.vscode"
cat > "$WS/.vscode/mcp.json" <<JSON
{
  "servers": {
    "demo": {
      "type": "stdio",
      "command": "node",
      "args": ["$PLANGATE_ROOT/dist/fixtureServer.js", "--demo", "--root", "\${workspaceFolder}", "--call-log", "\${workspaceFolder}/../calls.jsonl"]
    }
  }
}
JSON

# 3. the persistent profile, with the freshly packaged extension
mkdir -p "$PROFILE/user-data/User" "$PROFILE/extensions"
[ -f "$PROFILE/user-data/User/settings.json" ] || cat > "$PROFILE/user-data/User/settings.json" <<'JSON'
{
  "workbench.startupEditor": "readme",
  "workbench.colorTheme": "Default Dark Modern",
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "git.openRepositoryInParentFolders": "never",
  "security.workspace.trust.enabled": false
}
JSON
e2e_step "install plangate.vsix"
"$CODE_SERVER" --user-data-dir "$PROFILE/user-data" --extensions-dir "$PROFILE/extensions" \
  --install-extension "$PLANGATE_ROOT/plangate.vsix" --force > "$DEMO_HOME/logs/install-extension.log" 2>&1 \
  || { cat "$DEMO_HOME/logs/install-extension.log"; exit 1; }
e2e_step_done

# 4. code-server in its own process group; the group dies with this script
port=$(e2e_free_port "${PORT:-8080}")
url="http://127.0.0.1:$port/?folder=$WS"
log=$DEMO_HOME/logs/code-server.log
: > "$log"
# The smoke check skips VS Code's login-shell environment probe (VSCODE_CLI=1), which on a CI machine only waits out
# its 10-second timeout; a user's demo keeps it, as their VS Code would.
smoke_env=()
[ "$smoke" = 1 ] && smoke_env=(VSCODE_CLI=1)
env "${smoke_env[@]}" setsid "$CODE_SERVER" --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
  --disable-workspace-trust --user-data-dir "$PROFILE/user-data" --extensions-dir "$PROFILE/extensions" "$WS" >> "$log" 2>&1 &
cs_pid=$!
stop() {
  trap - EXIT INT TERM
  if kill -0 "$cs_pid" 2>/dev/null; then
    kill -TERM -- "-$cs_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 -- "-$cs_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$cs_pid" 2>/dev/null || true
  fi
}
trap 'echo; echo "[demo] stopping code-server…"; stop; exit 130' INT
trap 'echo "[demo] stopping code-server…"; stop; exit 143' TERM
trap stop EXIT

for _ in $(seq 1 150); do
  curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && break
  kill -0 "$cs_pid" 2>/dev/null || { tail -20 "$log"; echo "[demo] code-server exited at start (log: $log)" >&2; exit 1; }
  sleep 0.2
done
curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" || { tail -20 "$log"; echo "[demo] code-server did not answer /healthz (log: $log)" >&2; exit 1; }

if [ "$smoke" = 1 ]; then
  e2e_step "smoke: open the workbench in Chromium"
  "$NODE24" "$E2E_DIR/lib/demoSmoke.mjs" "$url" "$DEMO_HOME/smoke" || { tail -20 "$log"; echo "[demo] smoke check failed (screenshots and log: $DEMO_HOME/smoke, $log)" >&2; exit 1; }
  e2e_step_done
  echo "[demo] smoke OK in $(( $(date +%s) - t_all ))s: code-server answered /healthz, Plangate activated, the demo MCP server runs"
  exit 0
fi

cat <<BANNER

  ┌──────────────────────────────────────────────────────────────────────────────
  │ Plangate demo is running (ready in $(( $(date +%s) - t_all ))s)
  │
  │   open  $url
  │
  │ Workspace: $WS (see its README.md for what to try)
  │ Log:       $log
  │ Stop:      Ctrl-C here (code-server and the MCP servers it started stop with it)
  └──────────────────────────────────────────────────────────────────────────────

BANNER
wait "$cs_pid" || true
echo "[demo] code-server stopped (log: $log)"
