#!/usr/bin/env bash
# The sync hub's tests start a real Postgres server (test/support/postgres-server.ts:
# initdb into a temporary folder, pg_ctl on a free loopback port). Install Debian's
# postgresql when its binaries are missing and we can; the tests skip, saying why, otherwise.
set -euo pipefail
for dir in /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
  if [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ]; then exit 0; fi
done
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "engram: installing Debian's postgresql for the sync hub tests" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  # The package starts a cluster of its own; the tests start theirs.
  service postgresql stop >/dev/null 2>&1 || true
else
  echo "engram: the sync hub tests need Postgres (apt-get install postgresql); they will be skipped" >&2
fi
