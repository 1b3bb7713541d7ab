"""The README's "Five lines" section runs: its five-line example as a script, and the
SARI-style ``evaluate.combine`` example as a doctest, in a fresh offline interpreter
where the bare names resolve as documented ("arts" by `arts register`; "sari", which
lives on the unreachable Hub, by a local module of SARI's signature). The metric
card's "Examples" run as doctests the same way."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from offline import offline_env
from sari_signature import register_sari

REPO = Path(__file__).resolve().parent.parent


def _section(title: str, document: str = "README.md") -> str:
    text = (REPO / document).read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", text, re.S | re.M)
    assert match, f"{document} has no section {title!r}"
    return match.group(1)


def _offline_env(tmp_path: Path) -> dict:
    """An offline environment in which ``evaluate.load("arts")`` and ``"sari"`` resolve."""
    env = offline_env(tmp_path)
    subprocess.run(
        [str(Path(sys.executable).parent / "arts"), "register", "--quiet"], check=True, env=env, cwd=tmp_path
    )
    register_sari(tmp_path, tmp_path / "modules" / "evaluate_modules")
    return env


DOCTEST = textwrap.dedent(
    """
    import doctest, io, json, re, sys
    section = re.sub(r"^```.*$", "", open(sys.argv[1], encoding="utf-8").read(), flags=re.M)
    test = doctest.DocTestParser().get_doctest(section, {}, sys.argv[1], sys.argv[1], 0)
    report = io.StringIO()
    result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=report.write)
    print(json.dumps({"attempted": result.attempted, "failed": result.failed, "report": report.getvalue()}))
    """
)


def _run_doctests(section: str, tmp_path: Path, env: dict) -> None:
    """Run the section's examples; a code fence ends an expected output, as a blank line does."""
    path = tmp_path / "section.md"
    path.write_text(section, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-c", DOCTEST, str(path)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["failed"] == 0 and out["attempted"] == section.count(">>> "), out["report"]


@pytest.mark.slow
def test_metric_card_examples_run(tmp_path):
    section = _section("Examples", "metric_card.md")
    assert section.count(">>> ") >= 6
    _run_doctests(section, tmp_path, _offline_env(tmp_path))


@pytest.mark.slow
def test_five_lines_and_the_combine_doctest_run(tmp_path):
    section = _section("Five lines")
    script = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(script.splitlines()) == 5
    assert "evaluate.combine" in section and ">>> " in section
    env = _offline_env(tmp_path)
    (tmp_path / "five_lines.py").write_text(script, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "five_lines.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    arts = [float(a) for a in re.match(r"\[(.*?)\] \[", proc.stdout.strip().splitlines()[-1]).group(1).split(",")]
    assert len(arts) == 2 and 0.0 <= arts[0] < arts[1] <= 1.0
    _run_doctests(section, tmp_path, env)
