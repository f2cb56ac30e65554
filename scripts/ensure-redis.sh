#!/usr/bin/env bash
# `npm test` prerequisite: the store and watcher tests run the same suite on memory, SQLite and
# Redis, so they need a Redis server. They start a private `redis-server` on a free loopback port
# (or use TEST_REDIS_URL when set). On a fresh Debian/Ubuntu machine where we are root (this
# project's dev machines, CI, the Docker build stage), install it once with apt-get; anywhere else,
# say what to install and stop.
set -euo pipefail
if [ -n "${TEST_REDIS_URL:-}" ] || command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "npm test: installing redis-server (needed by the Redis-backed store tests; one time)..." >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  exit 0
fi
cat >&2 <<'MSG'
npm test needs a Redis server for the Redis-backed store tests. Either:
  - install redis-server (Debian/Ubuntu: sudo apt-get install -y redis-server; macOS: brew install redis), or
  - point TEST_REDIS_URL at a server you can write to, e.g. TEST_REDIS_URL=redis://127.0.0.1:6379
MSG
exit 1
