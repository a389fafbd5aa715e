#!/usr/bin/env bash
# Browser tests drive Debian's Chromium with playwright-core (Playwright's own
# browser download cannot work offline). Install it when it is missing and we can.
set -euo pipefail
path="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ -x "$path" ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "engram: installing Debian's chromium for the browser tests" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "engram: browser tests need Chromium at $path (apt-get install chromium, or set CHROMIUM_PATH)" >&2
  exit 1
fi
