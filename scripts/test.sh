#!/usr/bin/env bash
# Installs bodoge with its test tools (and Debian's chromium for the browser tests), then runs
# the linter and every test. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need_apt+=(fonts-noto-cjk)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need_apt[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

bash scripts/install.sh test
.venv/bin/ruff check bodoge tests
.venv/bin/ruff format --check bodoge tests
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"
