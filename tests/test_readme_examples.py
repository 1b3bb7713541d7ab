"""The README's "Five lines" run in a fresh offline interpreter and print what the README
shows under them; the docs' home page shows the same lines and output. The metric card's
"Examples" run as doctests the same way (the docs pages' examples: tests/test_docs.py)."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from doc_examples import REPO, registered_env, run_doctests, section


def _five_lines(text: str) -> tuple[str, str]:
    """The five-line script and the output shown under it."""
    match = re.search(r"```python\n(.*?)```\s*\n(?:prints\s*\n\s*)?```text\n(.*?)```", text, re.S)
    assert match, "no ```python block followed by its ```text output"
    return match.group(1), match.group(2)


@pytest.mark.slow
def test_metric_card_examples_run(tmp_path):
    text = section("Examples", "metric_card.md")
    assert text.count(">>> ") >= 6
    run_doctests({"metric_card.md": text}, tmp_path, registered_env(tmp_path))


@pytest.mark.slow
def test_five_lines_print_what_the_readme_shows(tmp_path):
    script, shown = _five_lines(section("Five lines"))
    assert len(script.splitlines()) == 5
    assert _five_lines((REPO / "docs" / "index.md").read_text(encoding="utf-8")) == (script, shown)
    (tmp_path / "five_lines.py").write_text(script, encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "five_lines.py"],
        cwd=tmp_path,
        env=registered_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout == shown
    easy, hard = (float(a) for a in re.match(r"\[(.*?)\] \[", shown).group(1).split(","))
    assert 0.0 <= easy < hard <= 1.0  # the example's point: the second text is harder
