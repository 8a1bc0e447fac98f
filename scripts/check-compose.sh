#!/usr/bin/env bash
# Validates docker-compose.yml (by default and with the observability profile, and the scenarios override) without
# a Docker engine. Uses Debian's docker-compose
# or the compose plugin; where neither exists it says so and skips, except under CI, where .ci/run installs it.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
else
  if [ "${CI:-}" = "true" ]; then
    echo "check-compose: no docker-compose under CI" >&2
    exit 1
  fi
  echo "check-compose: skipped (install Debian's docker-compose to validate docker-compose.yml)"
  exit 0
fi
"${compose[@]}" -f docker-compose.yml config -q
"${compose[@]}" -f docker-compose.yml --profile observability config -q
"${compose[@]}" -f docker-compose.yml -f docker-compose.scenarios.yml config -q
# The scenarios override turns the unauthenticated admin routes on: every published port must be on 127.0.0.1.
# (docker-compose 1.x prints "- 127.0.0.1:3000:3000/tcp"; the compose plugin "host_ip: 127.0.0.1" and "published:".)
scenarios="$("${compose[@]}" -f docker-compose.yml -f docker-compose.scenarios.yml config)"
published=$(grep -Ec '^ +- [^ ]*:[0-9]+/(tcp|udp)$|^ +published:' <<<"$scenarios" || true)
loopback=$(grep -Ec '^ +- 127\.0\.0\.1:[0-9]+:[0-9]+/(tcp|udp)$|^ +host_ip: 127\.0\.0\.1$' <<<"$scenarios" || true)
if [ "$published" -eq 0 ] || [ "$published" -ne "$loopback" ]; then
  echo "check-compose: the scenarios override publishes $published ports, $loopback of them on 127.0.0.1 only" >&2
  exit 1
fi
echo "check-compose: docker-compose.yml (default and observability profile) and docker-compose.scenarios.yml are valid"
