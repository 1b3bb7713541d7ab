"""Running the documentation's examples: a fresh offline interpreter where the bare names
resolve as documented ("arts" by `arts register`; "sari", which lives on the unreachable
Hub, by a local module of SARI's signature), and the ``>>>`` examples of Markdown files
run there as doctests."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from offline import offline_env
from sari_signature import register_sari

REPO = Path(__file__).resolve().parent.parent


def section(title: str, document: str = "README.md") -> str:
    """The text under ``## title`` of a Markdown file of the repository, up to the next ``## ``."""
    text = (REPO / document).read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"{document} has no section {title!r}"
    return match.group(1)


def registered_env(tmp_path: Path) -> dict:
    """An offline environment (:func:`offline.offline_env`, this checkout importable) in which
    ``evaluate.load("arts")`` and ``evaluate.load("sari")`` resolve."""
    env = offline_env(tmp_path)
    env["PYTHONPATH"] = os.pathsep.join([env["PYTHONPATH"], str(REPO)])
    subprocess.run(
        [str(Path(sys.executable).parent / "arts"), "register", "--quiet"], check=True, env=env, cwd=tmp_path
    )
    register_sari(tmp_path, tmp_path / "modules" / "evaluate_modules")
    return env


# One interpreter for every file (the judge loads once); each file gets its own namespace.
DOCTEST = textwrap.dedent(
    """
    import doctest, io, json, re, sys
    results = {}
    for path in sys.argv[1:]:
        text = re.sub(r"^```.*$", "", open(path, encoding="utf-8").read(), flags=re.M)
        test = doctest.DocTestParser().get_doctest(text, {}, path, path, 0)
        report = io.StringIO()
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=report.write)
        results[path] = {"attempted": result.attempted, "failed": result.failed, "report": report.getvalue()}
    print(json.dumps(results))
    """
)


def run_doctests(texts: dict[str, str], tmp_path: Path, env: dict) -> dict[str, dict]:
    """Run each text's ``>>>`` examples (a code fence ends an expected output, as a blank line
    does); fail unless every example ran and passed. Returns the per-text counts."""
    paths = {}
    for i, (name, text) in enumerate(texts.items()):
        path = tmp_path / f"examples_{i}.md"
        path.write_text(text, encoding="utf-8")
        paths[str(path)] = name
    proc = subprocess.run(
        [sys.executable, "-c", DOCTEST, *paths],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = {paths[path]: counts for path, counts in json.loads(proc.stdout.strip().splitlines()[-1]).items()}
    for name, counts in out.items():
        expected = texts[name].count(">>> ")
        assert counts["failed"] == 0 and counts["attempted"] == expected, (name, counts["report"])
    return out
