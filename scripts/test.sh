#!/usr/bin/env bash
# Installs bodoge with its test tools (and Debian's chromium for the browser tests), then runs
# the linter, the import contracts, the type checker and every test. Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need_apt+=(fonts-noto-cjk)
# The cluster tests start private Redis, PostgreSQL and nginx servers of their own.
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || need_apt+=(redis-server)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need_apt+=(nginx)
compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || need_apt+=(postgresql)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need_apt[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

bash scripts/install.sh test

# PostgreSQL for the store tests: the server at 127.0.0.1:5432 if one answers (CI's), else
# Debian's, started here and reached over its Unix socket as this user.
pg_answers() { .venv/bin/python -c "import socket; socket.create_connection(('127.0.0.1', 5432), 2)" 2>/dev/null; }
if [ -z "${BODOGE_TEST_PG:-}" ] && ! pg_answers; then
  if ! command -v pg_ctlcluster >/dev/null; then
    echo "installing Debian packages: postgresql"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  version=$(ls /etc/postgresql | sort -V | tail -n 1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
  me=$(id -un)
  if ! as_root su postgres -c "psql -tAc \"SELECT 1 FROM pg_roles WHERE rolname = '$me'\"" | grep -q 1; then
    as_root su postgres -c "createuser --superuser '$me'"
  fi
  export BODOGE_TEST_PG="postgresql://$me@/postgres?host=/var/run/postgresql"
fi
# Redis for the cluster tests: the server at 127.0.0.1:6379 if one answers, else one started
# here, keeping nothing on disk.
redis_answers() { .venv/bin/python -c "import socket; socket.create_connection(('127.0.0.1', 6379), 2)" 2>/dev/null; }
if [ -z "${BODOGE_TEST_REDIS:-}" ] && ! redis_answers; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 50); do redis_answers && break; sleep 0.1; done
fi
.venv/bin/ruff check bodoge tests
.venv/bin/ruff format --check bodoge tests
# The layering (pyproject's [tool.importlinter]) and the types ([tool.mypy]; its cache in
# .mypy_cache keeps a warm run to seconds).
.venv/bin/lint-imports
.venv/bin/mypy
exec .venv/bin/python -m pytest -n 2 --dist loadfile "$@"
