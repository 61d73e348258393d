#!/usr/bin/env bash
# Real-VS-Code end-to-end tests (`npm run test:e2e [-- FILTER…]`): sets up the tools (e2e/setup.sh), builds and
# packages the extension, then runs e2e/specs/*.test.mjs with Node 24's test runner. FILTER arguments keep only
# spec files whose name contains one of them. Artefacts (screenshots, code-server.log, extension host logs,
# browser console, the test output) go to .e2e/runs/<timestamp>/; their path is printed when something fails.
# Environment: E2E_TIMEOUT (seconds for the specs, default 2100), E2E_TEST_NAME_PATTERN (run only tests whose name matches), E2E_CONCURRENCY (spec files at once, default 3),
# E2E_KEEP_RUNS (run folders kept, default 20), E2E_SKIP_BUILD=1 (reuse dist/ and plangate.vsix as they are).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
E2E_LOG_TAG=e2e
cd "$PLANGATE_ROOT"
t_all=$(date +%s)

timeout --kill-after=30 900 bash "$E2E_DIR/setup.sh"

# The harness and specs are plain .mjs run by Node 24; tsc checks them (checkJs) once playwright-core's types are installed.
e2e_step "type check of the harness and specs"
npm run -s check:e2e > "$E2E_HOME/logs/check-e2e.log" 2>&1 || { cat "$E2E_HOME/logs/check-e2e.log"; echo "[e2e] tsc -p e2e failed" >&2; exit 1; }
e2e_step_done

if [ "${E2E_SKIP_BUILD:-}" != 1 ]; then
  e2e_step "npm run build"
  npm run build > "$E2E_HOME/logs/build.log" 2>&1 || { cat "$E2E_HOME/logs/build.log"; echo "[e2e] npm run build failed" >&2; exit 1; }
  e2e_step_done
  e2e_step "npm run package"
  npm run package > "$E2E_HOME/logs/package.log" 2>&1 || { cat "$E2E_HOME/logs/package.log"; echo "[e2e] npm run package failed" >&2; exit 1; }
  e2e_step_done "$(du -h plangate.vsix | cut -f1) plangate.vsix"
fi

# Longest first: three spec files run at a time (the machine idles between the steps of one: dialogs, waits for the
# server), and a long one started last would leave the other lanes idle at the end.
longest_first=(gate appsPolicy collectMode planPanel longPlan servers inHost inputs touchedFiles demo trust)
ordered=()
for name in "${longest_first[@]}"; do [ -f "$E2E_DIR/specs/$name.test.mjs" ] && ordered+=("$E2E_DIR/specs/$name.test.mjs"); done
for f in "$E2E_DIR"/specs/*.test.mjs; do [[ " ${ordered[*]} " == *" $f "* ]] || ordered+=("$f"); done
specs=()
for f in "${ordered[@]}"; do
  if [ $# -eq 0 ]; then specs+=("$f"); else for want in "$@"; do [[ $(basename "$f") == *"$want"* ]] && { specs+=("$f"); break; }; done; fi
done
((${#specs[@]})) || { echo "[e2e] no spec file in e2e/specs matches: $*" >&2; exit 1; }

e2e_isolate_env "$E2E_HOME"
export E2E_RUN_DIR="$E2E_HOME/runs/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$E2E_RUN_DIR"
# keep the newest E2E_KEEP_RUNS run folders
ls -1dt "$E2E_HOME"/runs/*/ 2>/dev/null | tail -n +$(( ${E2E_KEEP_RUNS:-20} + 1 )) | xargs -r rm -rf
"$NODE24" "$E2E_DIR/lib/processes.mjs" reap

echo "[e2e] ready after $(( $(date +%s) - t_all ))s; running ${#specs[@]} spec file(s), artefacts in $E2E_RUN_DIR"
set +e
name_filter=()
[ -n "${E2E_TEST_NAME_PATTERN:-}" ] && name_filter=(--test-name-pattern "$E2E_TEST_NAME_PATTERN")
# Not `node --test`: it sorts the files by name (see e2e/lib/runSpecs.mjs).
timeout --kill-after=30 "${E2E_TIMEOUT:-2100}" "$NODE24" "$E2E_DIR/lib/runSpecs.mjs" "${name_filter[@]}" \
  --concurrency "${E2E_CONCURRENCY:-3}" "${specs[@]}" 2>&1 | tee "$E2E_RUN_DIR/test-output.log"
rc=${PIPESTATUS[0]}
set -e
"$NODE24" "$E2E_DIR/lib/processes.mjs" reap
# on success print nothing more: the closing lines stay node's test runner's
if [ "$rc" -ne 0 ]; then
  [ "$rc" -eq 124 ] && echo "[e2e] the specs did not finish within ${E2E_TIMEOUT:-2100} s and were stopped" >&2
  echo "[e2e] FAILED — artefacts in $E2E_RUN_DIR (test output: test-output.log):" >&2
  for session in "$E2E_RUN_DIR"/*/; do
    [ -f "$session/code-server.log" ] || continue
    echo "    ${session#"$E2E_RUN_DIR"/}  code-server.log browser-console.log" >&2
    echo "      $(find "$session/shots" -name '*.png' 2>/dev/null | wc -l) screenshots in ${session}shots/" >&2
    find "$session/user-data/logs" \( -path '*exthost*/plangate.plangate/*.log' -o -name remoteexthost.log \) 2>/dev/null | sort | sed 's/^/      /' >&2
  done
  # Last, where a reader of only the output's tail sees it: what failed and why (the test runner's own summary).
  if grep -q 'failing tests:' "$E2E_RUN_DIR/test-output.log"; then
    echo "[e2e] what failed:" >&2
    sed -n '/failing tests:/,$p' "$E2E_RUN_DIR/test-output.log" | grep -v '^\s*at \|node:internal' | head -n 60 >&2
  fi
fi
exit "$rc"
