"""The documentation: the README's agreement table and picture come from the project's own
outputs, the site quotes benchmarks/results and the command line's help, its user pages
speak to users, its examples run, and it builds with warnings as errors."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from doc_examples import REPO, registered_env, run_doctests

DOCS = REPO / "docs"


def _hook():
    spec = importlib.util.spec_from_file_location("docs_hook_results", DOCS / "hooks" / "results.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _user_pages() -> dict[str, str]:
    """Every Markdown page a user reads: the README and docs/ outside development/."""
    pages = {"README.md": (REPO / "README.md").read_text(encoding="utf-8")}
    for path in sorted(DOCS.rglob("*.md")):
        if "development" not in path.relative_to(DOCS).parts:
            pages[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
    return pages


def test_the_readme_table_is_rendered_from_the_benchmark_output():
    hook = _hook()
    table = hook.readme_table()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert table in readme
    # every figure of the table is in the benchmark's output file, in its row
    source = (REPO / "benchmarks" / "results" / "learned_judge_accuracy.md").read_text(encoding="utf-8")
    for (row, _), line in zip(hook.README_ROWS, table.splitlines()[2:]):
        figures = re.findall(r"-?\d\.\d+", line)
        source_row = next(s for s in source.splitlines() if s.startswith(f"| {row} |"))
        assert figures and all(f in source_row for f in figures), (line, source_row)


def test_the_readme_table_follows_the_file(tmp_path, monkeypatch):
    hook = _hook()
    original = (hook.RESULTS / "learned_judge_accuracy.md").read_text(encoding="utf-8")
    source, label = hook.README_ROWS[0]
    row = next(line for line in original.splitlines() if line.startswith(f"| {source} |"))
    spearman, interval = row.split(" | ")[1:3]
    (tmp_path / "learned_judge_accuracy.md").write_text(original.replace(row, row.replace(spearman, "0.9999", 1)))
    monkeypatch.setattr(hook, "RESULTS", tmp_path)
    assert f"| {label} | 0.9999 {interval} |" in hook.readme_table()
    (tmp_path / "learned_judge_accuracy.md").write_text(original.replace("| FKGL |", "| Flesch-Kincaid |"))
    with pytest.raises(ValueError, match="no row 'FKGL'"):
        hook.readme_table()


def test_the_readme_projection_is_rendered_from_the_benchmark_outputs(tmp_path, monkeypatch):
    hook = _hook()
    projection = hook.readme_projection()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert projection in readme
    assert "| 1 H200 GPU |" in projection and "| 16 CPU actors |" in projection
    for name in ("gpu.md", "scale.md"):
        assert "PROJECTION (not measured)" in (hook.RESULTS / name).read_text(encoding="utf-8")
    # the rows follow the files
    for name in ("gpu.md", "scale.md"):
        (tmp_path / name).write_text((hook.RESULTS / name).read_text(encoding="utf-8"))
    gpu = (tmp_path / "gpu.md").read_text(encoding="utf-8")
    row = next(line for line in gpu.splitlines() if line.startswith("| 1 |"))
    (tmp_path / "gpu.md").write_text(gpu.replace(row, "| 1 | 9.99 h | 8.88 h |"))
    monkeypatch.setattr(hook, "RESULTS", tmp_path)
    assert "| 1 H200 GPU | 9.99 h | 8.88 h |" in hook.readme_projection()


def test_markers_quote_the_results_files_and_the_command_line():
    hook = _hook()
    page = hook.expand("a\n[[results: levels.md, table 2]]\n[[results: levels.md]]\n[[cli: score]]\nb\n")
    levels = (hook.RESULTS / "levels.md").read_text(encoding="utf-8")
    second_table = [line for line in levels.splitlines() if line.startswith("| default | Cochrane |")]
    assert second_table and second_table[0] in page
    assert "# Paragraphs and documents" not in page  # the file's title is dropped
    assert "usage: arts score" in page and "[[" not in page
    assert hook.expand("[[file: metric_card.md]]\n").startswith("## Metric Description")


@pytest.mark.parametrize(
    "marker, message",
    [
        ("[[results: nothing.md]]", "no benchmark output file"),
        ("[[results: ../README.md]]", "no benchmark output file"),
        ("[[results: levels.md, table 9]]", "has 2 tables, not a table 9"),
        ("[[results: levels.md, row 1]]", "expected 'NAME.md, table N'"),
        ("[[cli: nonsense]]", "no command 'nonsense'"),
        ("[[file: pyproject.toml]]", "no Markdown file"),
    ],
)
def test_a_bad_marker_stops_the_build(marker, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        _hook().expand(marker + "\n")


def _griffe_prose():
    spec = importlib.util.spec_from_file_location("docs_hook_griffe_prose", DOCS / "hooks" / "griffe_prose.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_reference_reads_a_prose_parameter_line_as_its_description():
    prose = _griffe_prose()
    doc = (
        "Score texts.\n\nParameters\n----------\npredictions : the texts to score (e.g. outputs).\n"
        "n : int or None\n    how many.\nconfig, settings : the fields of :class:`~arts_metric.config.ScoringConfig`.\n"
        "\nReturns\n-------\nx : the result.\n"
    )
    assert prose.rewrite(doc) == (
        "Score texts.\n\nParameters\n----------\npredictions\n    the texts to score (e.g. outputs).\n"
        "n : int or None\n    how many.\nconfig, settings\n    the fields of ``ScoringConfig``.\n"
        "\nReturns\n-------\nx : the result.\n"
    )


# Development talk that belongs in docs/development/ or commit messages, never on a user page.
DEVELOPMENT_TALK = re.compile(
    r"\bissues?\b(?! (?:a|one|the) )|#\d+\b|\bgoals?\b|\bcommit [0-9a-f]{7,}|\bablations?\b|\bmutants?\b|\bmutation",
    re.I,
)


def test_user_pages_speak_to_users():
    hook = _hook()
    found = []
    for name, text in _user_pages().items():
        for line in hook.expand(text).splitlines():
            if DEVELOPMENT_TALK.search(line):
                found.append(f"{name}: {line.strip()[:120]}")
    assert not found, "\n".join(found)


def test_the_readme_is_short_and_the_moved_sections_live_in_docs():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 120
    assert "bash scripts/setup.sh" in readme and "bash scripts/test.sh" in readme
    assert "python app.py" in readme and "docs/index.md" in readme
    reliability = (DOCS / "reliability.md").read_text(encoding="utf-8")
    assert "**A score depends on the text alone.**" in reliability
    assert "## Reliability" not in readme
    # the scale-out guide exists for its owner to fill
    assert "score_dataset" in (DOCS / "guides" / "scale.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_docs_examples_run(tmp_path):
    pages = {name: text for name, text in _user_pages().items() if ">>> " in text}
    assert {"docs/guides/simplification.md", "docs/guides/paragraphs.md", "docs/guides/your-humans.md"} <= set(pages)
    counts = run_doctests(pages, tmp_path, registered_env(tmp_path))
    assert sum(c["attempted"] for c in counts.values()) >= 15


@pytest.mark.slow
def test_the_picture_shows_the_current_scores(tmp_path):
    out = tmp_path / "arts-scale.svg"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "scale_figure.py"), "--out", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.read_bytes() == (DOCS / "assets" / "arts-scale.svg").read_bytes(), (
        "docs/assets/arts-scale.svg is stale: run .venv/bin/python scripts/scale_figure.py"
    )


@pytest.mark.slow
def test_the_site_builds_strict_and_quotes_the_results(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--site-dir", str(site)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = (site / "results" / "index.html").read_text(encoding="utf-8")
    assert "0.8318" in results and "0.968 (0.951, 0.983)" in results and "[[" not in results
    assert (site / "results" / "arts94_metrics.png").read_bytes() == (
        REPO / "benchmarks" / "results" / "arts94_metrics.png"
    ).read_bytes()
    api = (site / "reference" / "scoring" / "index.html").read_text(encoding="utf-8")
    assert "score_texts" in api and "the texts to score" in api  # generated from the docstrings
    assert ":class:" not in api and not re.search(r"<code>[^<]*the texts to score", api)  # prose is not a type
    assert "usage: arts compare" in (site / "cli" / "index.html").read_text(encoding="utf-8")


def test_the_documents_figures_the_readme_and_card_quote_are_in_the_benchmark_output():
    """Every figure the README and the metric card give for documents is one that
    ``benchmarks/documents.py`` printed in its last run."""
    results = (REPO / "benchmarks" / "results" / "documents.md").read_text(encoding="utf-8")
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quoted = re.findall(r"(\d+\.\d)% of pairs", readme)
    assert quoted, "the README quotes no documents figure"
    for percent in quoted:
        assert f"{float(percent) / 100:.3f}" in results, percent
    card = (REPO / "metric_card.md").read_text(encoding="utf-8")
    section = card.split("Measured on texts written by people at known levels", 1)[1].split("\n\n", 1)[0]
    figures = re.findall(r"\b0\.\d{3}\b", section)
    assert len(figures) >= 10
    assert [f for f in figures if f not in results] == []
