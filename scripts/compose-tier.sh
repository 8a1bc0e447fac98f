#!/usr/bin/env bash
# `pnpm test:compose`: the compose tier. Builds the five app images from ops/Dockerfile with the real compose files,
# then runs the suites of e2e/compose against the containers (jest.compose.config.js): docker-compose.yml alone
# (health, ports, read-only non-root, the README's walkthrough, a SIGKILL inside a container, a restart of Redis
# and PostgreSQL), then with docker-compose.scenarios.yml (`pnpm scenarios`, 409, `docker compose stop` mid-charge).
# Each suite starts its stack and tears it down with `down -v`; at exit the script tears down whatever is left and
# fails when a container, network or volume of its project remains.
# Disk: the stand-in engine stores layers on vfs (every layer and every container a full copy), and CI runs on the
# machine a session left behind. So the tier needs COMPOSE_TIER_MIN_FREE_GB (default 12) free where the engine keeps
# its data before it builds, drops the build cache once the images are built, and removes its five images at exit
# (COMPOSE_TIER_KEEP_IMAGES=1 keeps them): a second run starts from the disk the first one found. It prints the free
# space at each step.
#
# The engine: the one `docker info` answers. Where there is none, or the base images the compose files name are
# missing (no Docker Hub), it runs the shared stand-in script, ../shared/tools/offline-docker/setup.sh (found in a
# parent directory of the clone, or at OFFLINE_DOCKER_SETUP), as root. Where neither works it says why and exits 0
# (skipped) unless COMPOSE_TIER_REQUIRED=1.
# Env: COMPOSE_PROJECT_NAME (default retry-safe-compose-tier), COMPOSE_CLI (default: the compose plugin, else
# docker-compose), COMPOSE_TIER_SUITES (default: compose-up scenarios).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
started=$(date +%s)
export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-retry-safe-compose-tier}
project=$COMPOSE_PROJECT_NAME
# The demo's published credentials: the tier runs the demo as a user does.
export RETRY_SAFE_DEMO=${RETRY_SAFE_DEMO:-1}
# docker-compose waits 60 s for each engine call by default; removing a container on the stand-in engine's vfs
# storage took longer than that on a loaded machine (`down -v` failed with a read time-out, the removal finished
# later), so every compose call here and in the suites gets 5 minutes.
export COMPOSE_HTTP_TIMEOUT=${COMPOSE_HTTP_TIMEOUT:-300}

say() { echo "compose-tier: $*"; }
# Free GB where the engine keeps its layers (the root filesystem when the engine does not say).
free_gb() {
  local dir
  dir=$(docker info --format '{{.DockerRootDir}}' 2>/dev/null || true)
  [ -d "$dir" ] || dir=/
  df -Pk "$dir" | awk 'NR == 2 { print int($4 / 1048576) }'
}
skip() {
  say "SKIPPED: $*"
  if [ "${COMPOSE_TIER_REQUIRED:-}" = "1" ]; then exit 1; fi
  exit 0
}

find_setup() {
  if [ -n "${OFFLINE_DOCKER_SETUP:-}" ]; then echo "$OFFLINE_DOCKER_SETUP"; return; fi
  local dir=$root
  while [ "$dir" != "/" ]; do
    dir=$(dirname "$dir")
    if [ -f "$dir/shared/tools/offline-docker/setup.sh" ]; then echo "$dir/shared/tools/offline-docker/setup.sh"; return; fi
  done
}
setup=$(find_setup || true)
run_setup() {
  [ -n "$setup" ] || skip "$1, and no offline-docker setup script (../shared/tools/offline-docker/setup.sh) to bring one"
  [ "$(id -u)" = "0" ] || skip "$1, and the offline-docker setup script needs root"
  say "$1: running $setup"
  # The stand-in copies the npm of `npm root -g`. With Node 24 from the npm registry's `node` package first on
  # PATH, npm derives that root from the node binary's own folder, where no npm is; point it at the prefix of the
  # npm CLI that PATH finds instead (/usr for Debian's).
  local npm_cli npm_prefix
  npm_cli=$(readlink -f "$(command -v npm)")
  npm_prefix=${npm_cli%/lib/node_modules/npm/bin/npm-cli.js}
  [ "$npm_prefix" != "$npm_cli" ] || npm_prefix=$(npm prefix -g)
  # Bounded: the first run builds the stand-ins in about 5 minutes.
  npm_config_prefix=$npm_prefix timeout 900 bash "$setup" || skip "$1, and $setup failed"
}

# A docker CLI that builds with BuildKit: a client with buildx, or one from before 23.0 (BuildKit built in).
# Debian's docker.io (20.10, /usr/bin/docker) may sit behind a newer client without the buildx plugin on PATH.
buildkit_cli() {
  "$1" buildx version >/dev/null 2>&1 && return 0
  local major
  major=$("$1" version --format '{{.Client.Version}}' 2>/dev/null | cut -d. -f1 || true)
  [ -n "$major" ] && [ "$major" -lt 23 ] 2>/dev/null
}
pick_docker() {
  local candidate
  for candidate in $(command -v docker || true) /usr/bin/docker; do
    if [ -x "$candidate" ] && buildkit_cli "$candidate"; then
      if [ "$candidate" != "$(command -v docker)" ]; then
        bin=$(mktemp -d) && ln -s "$candidate" "$bin/docker" && export PATH="$bin:$PATH"
      fi
      return 0
    fi
  done
  return 1
}

if ! command -v docker >/dev/null 2>&1 || ! docker info >/dev/null 2>&1; then
  run_setup "no Docker engine answers"
fi
pick_docker || skip "no docker CLI that builds with BuildKit (buildx, or Debian's docker.io)"
docker info >/dev/null 2>&1 || skip "no Docker engine answers"
missing=()
for image in node:24-bookworm-slim redis:7-alpine postgres:17-alpine; do
  docker image inspect "$image" >/dev/null 2>&1 || missing+=("$image")
done
if [ ${#missing[@]} -gt 0 ] && ! timeout 120 docker pull -q "${missing[0]}" >/dev/null 2>&1; then
  run_setup "base images missing and not pullable (${missing[*]})"
fi

if [ -n "${COMPOSE_CLI:-}" ]; then read -r -a compose <<<"$COMPOSE_CLI"
elif docker compose version >/dev/null 2>&1; then compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then compose=(docker-compose)
else skip "neither the compose plugin nor docker-compose is installed"; fi
export COMPOSE_CLI="${compose[*]}"
# The builds go through the docker CLI (BuildKit: RUN --mount), one image at a time.
export DOCKER_BUILDKIT=1 COMPOSE_DOCKER_CLI_BUILD=1
project_compose() {
  "${compose[@]}" -p "$project" -f docker-compose.yml -f docker-compose.scenarios.yml "$@"
}

leftovers() {
  local label="label=com.docker.compose.project=$project"
  {
    docker ps -aq --filter "$label" | sed 's/^/container /'
    docker network ls -q --filter "$label" | sed 's/^/network /'
    docker volume ls -q --filter "$label" | sed 's/^/volume /'
  } 2>/dev/null
}
teardown() {
  local status=$?
  project_compose down -v --remove-orphans --timeout 40 >/dev/null 2>&1 || true
  # The engine may still be removing what a timed-out `down` asked for: give it two minutes, asking again.
  local left tries=0
  left=$(leftovers)
  while [ -n "$left" ] && [ "$tries" -lt 12 ]; do
    sleep 10
    project_compose down -v --remove-orphans --timeout 40 >/dev/null 2>&1 || true
    left=$(leftovers)
    tries=$((tries + 1))
  done
  if [ -n "$left" ]; then
    say "FAILED: left behind: $(tr '\n' ' ' <<<"$left")"
    status=1
  fi
  if [ "${COMPOSE_TIER_KEEP_IMAGES:-}" != "1" ]; then
    for app in "${apps[@]}"; do docker image rm -f "${project}_$app" "${project}-$app" >/dev/null 2>&1 || true; done
    docker builder prune -af >/dev/null 2>&1 || true
    say "images and build cache removed: $(free_gb) GB free"
  fi
  say "total $(($(date +%s) - started)) s"
  exit "$status"
}
apps=(provider-sim payments orders gateway invoice-worker)
trap teardown EXIT
trap "exit 143" TERM INT
# A previous run that was cut off (or a stack of this project started by hand): its ports are ours to free.
project_compose down -v --remove-orphans --timeout 40 >/dev/null 2>&1 || true
for port in 3000 3001 3002 3003 3004 9401; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    say "FAILED: 127.0.0.1:$port is in use; the compose files publish the services on 127.0.0.1:3000-3004 and 9401"
    exit 1
  fi
done


free=$(free_gb)
if [ "$free" -lt "${COMPOSE_TIER_MIN_FREE_GB:-12}" ]; then
  say "FAILED: $free GB free where the engine keeps its data; the tier needs ${COMPOSE_TIER_MIN_FREE_GB:-12} GB (vfs layers)"
  exit 1
fi
build_started=$(date +%s)
say "building the app images with ${compose[*]} (one at a time; $free GB free)"
: >/tmp/compose-tier-build.log
for app in "${apps[@]}"; do
  "${compose[@]}" -p "$project" -f docker-compose.yml -f e2e/compose/build-host-network.yml build "$app" \
    >>/tmp/compose-tier-build.log 2>&1 || {
    tail -40 /tmp/compose-tier-build.log
    say "FAILED: the build of $app (log: /tmp/compose-tier-build.log)"
    exit 1
  }
done
say "built in $(($(date +%s) - build_started)) s; $(free_gb) GB free"
# The build stages and the pnpm store are not needed to run the images.
docker builder prune -af >/dev/null 2>&1 || true
say "build cache dropped: $(free_gb) GB free"
base=$(docker image inspect --format '{{.Size}}' node:24-bookworm-slim)
for app in "${apps[@]}"; do
  for name in "${project}_$app" "${project}-$app"; do
    size=$(docker image inspect --format '{{.Size}}' "$name" 2>/dev/null) || continue
    say "image $name: $((size / 1000000)) MB ($(((size - base) / 1000000)) MB above node:24-bookworm-slim)"
  done
done

[ -f scenarios/dist/cli/scenarios.js ] || pnpm build
for suite in ${COMPOSE_TIER_SUITES:-compose-up scenarios}; do
  suite_started=$(date +%s)
  NODE_OPTIONS=--experimental-vm-modules pnpm exec jest -c jest.compose.config.js --runInBand \
    "e2e/compose/$suite.compose-spec.ts"
  say "suite $suite: $(($(date +%s) - suite_started)) s; $(free_gb) GB free"
done
