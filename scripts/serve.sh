#!/usr/bin/env bash
# Installs bodoge and starts the server (SQLite in a per-user data folder; nothing else needed).
# Arguments go to `bodoge serve`, e.g. scripts/serve.sh --host 0.0.0.0 --port 8080
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
exec .venv/bin/bodoge serve "$@"
