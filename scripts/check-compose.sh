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
# The production override has no default for any secret: config must fail without them (naming one) and pass with
# the example env file. The demo file must declare itself one.
grep -q "RETRY_SAFE_DEMO: '1'" docker-compose.yml || { echo "check-compose: docker-compose.yml must declare RETRY_SAFE_DEMO: '1'" >&2; exit 1; }
production=(-f docker-compose.yml -f docker-compose.production.yml)
if env -u INTERNAL_TOKEN -u REDIS_PASSWORD -u POSTGRES_PASSWORD -u API_TOKENS "${compose[@]}" "${production[@]}" config -q 2>/dev/null; then
  echo "check-compose: docker-compose.production.yml validates without its secrets (it must not)" >&2
  exit 1
fi
env -u INTERNAL_TOKEN -u REDIS_PASSWORD -u POSTGRES_PASSWORD -u API_TOKENS \
  "${compose[@]}" "${production[@]}" --env-file ops/production.env.example config -q
echo "check-compose: docker-compose.yml (default and observability profile) and docker-compose.scenarios.yml are valid; docker-compose.production.yml fails without its secrets and passes with them"
