#!/usr/bin/env bash
# Create .venv/ at the repo root and install arts-metric with everything the
# tests need. Idempotent: a second run with an unchanged pyproject.toml only
# checks. Needs Python 3.11 and the package registries (PyPI, Debian).
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-python3.11}"
command -v "$PY" >/dev/null 2>&1 || PY=python3
stamp=".venv/.arts-install-stamp"
want="$(cat pyproject.toml scripts/install.sh | sha256sum | cut -d' ' -f1)"
if [[ ! -x .venv/bin/python ]]; then
    "$PY" -m venv .venv
fi
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    # torch first and pinned to the CPU build for this machine (pyproject.toml states a range,
    # which pip would fill with the much larger CUDA build).
    .venv/bin/python -m pip install --quiet "torch==2.13.0"
    # precision="int8" (the `int8` extra, in [all]): pinned to the versions its measured bound was taken with.
    .venv/bin/python -m pip install --quiet "onnxruntime==1.31.1" "onnx==1.23.2" "onnx_ir==1.1.0"
    # [test] includes [all], hence the `ray` extra (ray[data], ~240 MB): the Ray tests run on a local cluster.
    .venv/bin/python -m pip install --quiet -e ".[test,docs]"
    # The oldest evaluate release pyproject.toml allows, beside the venv's newest: the
    # module script's tests also run against it (tests/test_evaluate_versions.py).
    rm -rf .venv/evaluate-oldest
    .venv/bin/python -m pip install --quiet --no-deps --target .venv/evaluate-oldest "evaluate==0.4.1"
    echo "$want" > "$stamp"
fi
# Headless Chromium for the rating-interface tests (Debian's package; Playwright
# drives it through executable_path, it never downloads a browser of its own).
if ! command -v chromium >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == "0" ]]; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
            || echo "warning: could not install chromium; the browser tests will fail" >&2
    else
        echo "warning: chromium not found and apt-get unavailable; the browser tests will fail" >&2
    fi
fi
# Make the bare name evaluate.load("arts") resolve offline (see README).
.venv/bin/arts register --quiet
