#!/usr/bin/env bash
# Run the test suite (installs into .venv/ first when needed, so it works on a fresh clone):
# Ruff's lint and format check (settings in pyproject.toml), then pytest (tests/test_docs.py
# builds the documentation site, mkdocs.yml, strict and offline: any warning fails it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install.sh
# The whole repository, as a contributor's `ruff check .` sees it (the format check covers the
# Python blocks of the Markdown pages too); ruff skips what .gitignore ignores (.venv/, site/, ...).
.venv/bin/ruff check .
.venv/bin/ruff format --check .
# Test processes in parallel (pytest-xdist): one a core, at most 8, or ARTS_TEST_WORKERS (one
# more than the cores was slower: the Ray tests' actors starve). The tests of a module marked
# xdist_group (a Ray cluster, the Space) run in one process. Arguments go to pytest.
# nproc obeys OMP_NUM_THREADS, so the cores are counted without it.
cores="$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)"
workers="${ARTS_TEST_WORKERS:-$cores}"
(( workers <= 8 )) || workers=8
# Each test process's math libraries (torch, OpenBLAS, in its subprocesses and Ray actors too)
# get cores / workers threads, unless OMP_NUM_THREADS is set: more threads than cores in all
# only wait on each other.
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(( cores / workers > 1 ? cores / workers : 1 ))}"
exec .venv/bin/python -m pytest -n "$workers" --dist loadgroup "$@"
