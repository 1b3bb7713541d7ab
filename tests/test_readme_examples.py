"""The README's "Five lines" section runs: its five-line example as a script, and the
SARI-style ``evaluate.combine`` example as a doctest, in a fresh offline interpreter
where the bare names resolve as documented ("arts" by `arts register`; "sari", which
lives on the unreachable Hub, by a local module of SARI's signature)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

from sari_signature import register_sari

REPO = Path(__file__).resolve().parent.parent
OFFLINE_SITE = Path(__file__).resolve().parent / "offline_site"


def _section(title: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## )", readme, re.S | re.M)
    assert match, f"README has no section {title!r}"
    return match.group(1)


def test_five_lines_and_the_combine_doctest_run(tmp_path):
    section = _section("Five lines")
    script = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert len(script.splitlines()) == 5
    assert "evaluate.combine" in section and ">>> " in section
    env = dict(os.environ)
    env.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", HF_EVALUATE_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
               HF_MODULES_CACHE=str(tmp_path / "modules"), HF_HOME=str(tmp_path / "hf_home"),
               PYTHONPATH=str(OFFLINE_SITE))
    subprocess.run([str(Path(sys.executable).parent / "arts"), "register", "--quiet"], check=True, env=env, cwd=tmp_path)
    register_sari(tmp_path, tmp_path / "modules" / "evaluate_modules")
    # a code fence ends an example's expected output, as a blank line does in a docstring
    (tmp_path / "section.md").write_text(re.sub(r"^```.*$", "", section, flags=re.M), encoding="utf-8")
    (tmp_path / "five_lines.py").write_text(script, encoding="utf-8")
    runner = textwrap.dedent(
        """
        import contextlib, doctest, io, json, runpy
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            runpy.run_path("five_lines.py", run_name="__main__")
        section = open("section.md", encoding="utf-8").read()
        test = doctest.DocTestParser().get_doctest(section, {}, "README Five lines", "README.md", 0)
        report = io.StringIO()
        result = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS).run(test, out=report.write)
        print(json.dumps({"printed": printed.getvalue(), "attempted": result.attempted,
                          "failed": result.failed, "report": report.getvalue()}))
        """
    )
    proc = subprocess.run([sys.executable, "-c", runner], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["failed"] == 0 and out["attempted"] == section.count(">>> "), out["report"]
    arts, fkgl = re.match(r"\[(.*?)\] \[(.*?)\]", out["printed"]).groups()
    arts = [float(a) for a in arts.split(",")]
    assert len(arts) == 2 and 0.0 <= arts[0] < arts[1] <= 1.0
