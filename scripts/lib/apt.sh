# apt_install TAG LOG PACKAGE=REASON...: installs Debian packages with apt-get as root (directly when this shell runs
# as root, else through passwordless sudo), after saying on the console which packages, why each is needed, how it
# gets root and where apt-get's own output goes. Source it (scripts/installSandbox.sh, e2e/setup.sh); the callers
# decide what is missing, this only installs. Exits when there is no apt-get or no way to root.
apt_install() {
  local tag=$1 log=$2 spec
  shift 2
  local packages=()
  for spec in "$@"; do packages+=("${spec%%=*}"); done
  command -v apt-get >/dev/null || { echo "[$tag] missing ${packages[*]} and no apt-get here: install them, then try again." >&2; exit 1; }
  local how=() said
  if [ "$(id -u)" = 0 ]; then said="as root (this shell runs as root)"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then how=(sudo); said="as root through sudo"
  else
    echo "[$tag] needs root to install ${packages[*]} with apt-get — run: sudo apt-get install ${packages[*]} — then try again." >&2
    exit 1
  fi
  echo "[$tag] installing ${#packages[@]} Debian package(s) with apt-get, $said:"
  for spec in "$@"; do echo "[$tag]   ${spec%%=*} — ${spec#*=}"; done
  echo "[$tag] (apt-get update, then apt-get install --no-install-recommends; its output goes to $log)"
  "${how[@]}" apt-get update -qq > "$log" 2>&1 || { tail -20 "$log"; exit 1; }
  "${how[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >> "$log" 2>&1 \
    || { tail -30 "$log"; exit 1; }
}
