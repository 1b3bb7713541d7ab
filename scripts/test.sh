#!/usr/bin/env bash
# Run the test suite (installs into .venv/ first when needed, so it works on a fresh clone):
# Ruff's lint and format check (settings in pyproject.toml), then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
.venv/bin/ruff check arts_metric tests benchmarks scripts app.py
.venv/bin/ruff format --check arts_metric tests benchmarks scripts app.py
exec .venv/bin/python -m pytest "$@"
