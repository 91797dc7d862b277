#!/usr/bin/env bash
# Installs bodoge into ./.venv (creating it), on a fresh Debian machine too.
# Usage: scripts/install.sh [EXTRA]   e.g. "test" for the test tools.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_install() {
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null \
    || { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null; }
}

PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null; then apt_install python3 python3-venv python3-pip; fi
"$PYTHON" - <<'PY' || { echo "bodoge needs Python 3.11 or newer" >&2; exit 1; }
import sys
sys.exit(sys.version_info < (3, 11))
PY
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv 2>/dev/null || { apt_install python3-venv && rm -rf .venv && "$PYTHON" -m venv .venv; }
fi
extra=${1:-}
# Quiet unless it fails: the build tools' notices are noise on a good day.
if ! { .venv/bin/python -m pip install -q --upgrade pip \
       && .venv/bin/python -m pip install -q -e ".${extra:+[$extra]}"; } > .venv/install.log 2>&1; then
  cat .venv/install.log >&2
  exit 1
fi
# The browser tests run the current axe-core (the npm package, never copied into the
# repository) in the pages they audit: installed here, in a git-ignored folder.
if [ "$extra" = test ]; then
  command -v npm >/dev/null || apt_install npm
  if ! npm install --prefix .test-tools --no-audit --no-fund --silent axe-core@^4.14.1 \
       > .test-tools.log 2>&1; then
    cat .test-tools.log >&2
    exit 1
  fi
fi
