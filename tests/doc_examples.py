"""Running the documentation's examples: a fresh offline interpreter where the bare names
resolve as documented ("arts" by `arts register`; "sari", which lives on the unreachable
Hub, by a local module of SARI's signature), the ``>>>`` examples of Markdown files run
there as doctests, and their ```python blocks as scripts (one reading ``WORLD_SIZE`` as two
processes), unless marked as fragments."""

from __future__ import annotations

import builtins
import json
import os
import re
import shutil
import subprocess
import symtable
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


#: A ```python block of a page, its code in group 1.
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
#: The first line of an example that does not run on its own, saying what it needs.
FRAGMENT = "# A fragment:"


def python_examples(text: str) -> list[str]:
    """The ```python blocks of a Markdown text that run as scripts: not marked :data:`FRAGMENT`,
    and not ``>>>`` sessions (those run as doctests)."""
    return [code for code in PYTHON_BLOCK.findall(text) if not code.startswith((FRAGMENT, ">>> "))]


def undefined_names(code: str) -> list[str]:
    """The names a script reads without defining or importing them (not builtins): what
    would raise NameError as written."""
    top = symtable.symtable(code, "example", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    used: set[str] = set()

    def walk(table: symtable.SymbolTable) -> None:
        for s in table.get_symbols():
            if s.is_referenced() and (table is top or s.is_global()):
                used.add(s.get_name())
        for child in table.get_children():
            walk(child)

    walk(top)
    return sorted(used - bound - set(dir(builtins)))


def run_example(code: str, tmp_path: Path, env: dict, name: str) -> None:
    """Run one example as a script from a folder holding the repository's ``examples/`` (the
    examples read them as from the repository's root); one that reads ``WORLD_SIZE`` runs as
    two processes, ranks 0 and 1, as a launcher such as torchrun starts them. Fails with the
    script's error unless every process exits 0."""
    work = tmp_path / name
    shutil.copytree(REPO / "examples", work / "examples")
    (work / "example.py").write_text(code, encoding="utf-8")
    ranks = [{"RANK": str(r), "WORLD_SIZE": "2"} for r in range(2)] if "WORLD_SIZE" in code else [{}]
    # output to files: a process blocked on a full pipe would stall the other at the rendezvous
    logs = [work / f"rank{r}.log" for r in range(len(ranks))]
    procs = []
    for rank, log in zip(ranks, logs):
        with log.open("w") as out:
            procs.append(
                subprocess.Popen([sys.executable, "example.py"], cwd=work, env={**env, **rank}, stdout=out, stderr=out)
            )
    for proc, rank, log in zip(procs, ranks, logs):
        proc.wait(timeout=600)
        assert proc.returncode == 0, f"{name} {rank}:\n{code}\n{log.read_text()[-3000:]}"
