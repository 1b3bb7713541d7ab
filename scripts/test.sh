#!/usr/bin/env bash
# Run the test suite (installs into .venv/ first when needed, so it works on a fresh clone):
# Ruff's lint and format check (settings in pyproject.toml), the documentation site
# (mkdocs.yml; offline, into the ignored site/, any warning fails), then pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# The whole repository, as a contributor's `ruff check .` sees it (the format check covers the
# Python blocks of the Markdown pages too); ruff skips what .gitignore ignores (.venv/, site/, ...).
.venv/bin/ruff check .
.venv/bin/ruff format --check .
PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" NO_MKDOCS_2_WARNING=1 HF_HUB_OFFLINE=1 \
    .venv/bin/mkdocs build --strict --quiet --site-dir site
# Test processes in parallel (pytest-xdist): one more than the cores (many tests wait on a
# server, a browser or a fresh interpreter), at most 8, or ARTS_TEST_WORKERS. The tests of a
# module marked xdist_group (a Ray cluster, the Space) run in one process. Arguments go to pytest.
workers="${ARTS_TEST_WORKERS:-$(( $(nproc) + 1 ))}"
(( workers <= 8 )) || workers=8
exec .venv/bin/python -m pytest -n "$workers" --dist loadgroup "$@"
