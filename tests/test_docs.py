"""The documentation: the README's agreement table and picture and the metric card's table
come from the project's own outputs, every page quotes one interval for a figure, the site
quotes benchmarks/results and the command line's help (fitting its column, without the
building machine's state), its user pages speak to users, its examples run or say they are
fragments, the API reference reads every docstring as numpydoc, and it builds with warnings
as errors."""

from __future__ import annotations

import html
import importlib.util
import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import griffe
import pytest
from doc_examples import (
    FRAGMENT,
    PYTHON_BLOCK,
    REPO,
    python_examples,
    registered_env,
    run_doctests,
    run_example,
    undefined_names,
)

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
    assert "| 1 H100 GPU |" in projection and "| 16 CPU actors |" in projection  # the card gpu.md names
    for name in ("gpu.md", "scale.md"):
        assert "PROJECTION (not measured)" in (hook.RESULTS / name).read_text(encoding="utf-8")
    # the rows follow the files
    for name in ("gpu.md", "scale.md"):
        (tmp_path / name).write_text((hook.RESULTS / name).read_text(encoding="utf-8"))
    gpu = (tmp_path / "gpu.md").read_text(encoding="utf-8")
    row = next(line for line in gpu.splitlines() if line.startswith("| 1 |"))
    (tmp_path / "gpu.md").write_text(gpu.replace(row, "| 1 | 9.99 h | 8.88 h |"))
    monkeypatch.setattr(hook, "RESULTS", tmp_path)
    assert "| 1 H100 GPU | 9.99 h | 8.88 h |" in hook.readme_projection()
    (tmp_path / "gpu.md").write_text(gpu.replace("GPU: NVIDIA H100", "GPU: NVIDIA H200"))
    assert "| 16 H200 GPUs |" in hook.readme_projection()


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
        "n : int or None\n    how many.\nconfig, settings : the fields of :class:`~arts_metric.scoring.config.ScoringConfig`.\n"
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


def test_version_strings_in_the_docs_are_the_packages():
    """A wheel name or a signature's ``version:`` in a user page names the installed release."""
    from arts_metric import __version__

    pattern = re.compile(r"arts_metric-(\d+\.\d+\.\d+)|version:(\d+\.\d+\.\d+)")
    found = {
        f"{name}: {m.group(0)}"
        for name, text in _user_pages().items()
        for m in pattern.finditer(text)
        if (m.group(1) or m.group(2)) != __version__
    }
    assert not found, f"version strings other than {__version__}: {sorted(found)}"
    assert any("version:" + __version__ in text for text in _user_pages().values())


def test_no_package_module_is_over_450_lines():
    """Small modules with one job each: none of the package's modules (the evaluate module
    script included) grows past 450 lines."""
    sizes = {
        str(path.relative_to(REPO)): len(path.read_text(encoding="utf-8").splitlines())
        for path in (REPO / "arts_metric").rglob("*.py")
    }
    assert len(sizes) > 50 and "arts_metric/evaluate_module/arts.py" in sizes
    assert {name: n for name, n in sizes.items() if n > 450} == {}


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
    # The same drawing up to 0.01 of a pixel: fp32 scores differ in their last digits on CPUs
    # with other instructions (an AVX-512 machine moves points by about 1e-4 px).
    made, kept = (_svg_parts(path.read_bytes()) for path in (out, DOCS / "assets" / "arts-scale.svg"))
    stale = "docs/assets/arts-scale.svg is stale: run .venv/bin/python scripts/scale_figure.py"
    assert made[0] == kept[0] and len(made[1]) == len(kept[1]), stale
    moved = max((abs(a - b) for a, b in zip(made[1], kept[1])), default=0.0)
    assert moved <= 0.01, f"{stale} (a coordinate moved by {moved:.4f})"


def _svg_parts(svg: bytes) -> tuple[list[bytes], list[float]]:
    """An SVG's text between its decimal numbers, and those numbers."""
    parts = re.split(rb"(-?\d+\.\d+)", svg)
    return parts[0::2], [float(x) for x in parts[1::2]]


def _mkdocs_build(project: Path, site: Path) -> subprocess.CompletedProcess:
    """``mkdocs build --strict`` of the project at ``project`` into ``site``, offline."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [str(Path(sys.executable).parent / "mkdocs"), "build", "--strict", "--site-dir", str(site)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The documentation site, built once for this module's tests (fails on any warning)."""
    site = tmp_path_factory.mktemp("docs") / "site"
    proc = _mkdocs_build(REPO, site)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return site


@pytest.mark.slow
def test_the_site_builds_strict_and_quotes_the_results(site):
    results = (site / "results" / "index.html").read_text(encoding="utf-8")
    assert "0.8099" in results and "0.995 (0.985, 1.000)" in results and "[[" not in results
    assert "TLDR vs elementary sentence, same length: share TLDR harder" in results  # the judge's probes
    assert (site / "results" / "arts94_metrics.png").read_bytes() == (
        REPO / "benchmarks" / "results" / "arts94_metrics.png"
    ).read_bytes()
    api = (site / "reference" / "scoring" / "index.html").read_text(encoding="utf-8")
    assert "score_texts" in api and "the texts to score" in api  # generated from the docstrings
    assert ":class:" not in api and not re.search(r"<code>[^<]*the texts to score", api)  # prose is not a type
    # every parameter its own row, with its own type: the direction's row is not the human scores'
    direction = re.search(r"<code>human_higher_is</code>\s*</td>\s*<td>(.*?)</td>", api, re.S).group(1)
    assert "Direction" in direction and "Sequence" not in direction
    # ScoringConfig lists every setting (a row each)
    from arts_metric.scoring.config import ScoringConfig

    start = api.index('id="arts_metric.scoring.config.ScoringConfig"')
    config = api[start : api.index('class="doc doc-heading"', start + 100)]
    assert all(re.search(rf"<td>\s*<code>{name}</code>\s*</td>", config) for name in ScoringConfig.names())
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


# --- the API reference: one docstring style, read as numpydoc --------------------------------


def _extension(name: str):
    spec = importlib.util.spec_from_file_location(f"docs_hook_{name}", DOCS / "hooks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _griffe_load(package: str, extension: object) -> griffe.Object:
    """``package`` as the API reference reads it (numpydoc, aliases unresolved), with one ``extension``."""
    return griffe.load(
        package,
        search_paths=[str(REPO)],
        docstring_parser="numpy",
        extensions=griffe.load_extensions(extension),
        resolve_aliases=False,
    )


def _objects(obj: griffe.Object):
    yield obj
    for member in obj.members.values():
        if not member.is_alias:
            yield from _objects(member)


def test_the_numpydoc_check_finds_google_sections_and_combined_entries():
    check = _extension("griffe_numpy")
    clean = "Score.\n\nParameters\n----------\nx : int\n    one.\ny\n    the other, ``a, b``.\n"
    assert check.problems(clean) == []
    google = "Score.\n\nArgs:\n    x: one.\n\nReturns:\n    the score.\n"
    assert [line for line, _ in check.problems(google)] == [2, 5]
    assert "Google-style section 'Args:'" in check.problems(google)[0][1]
    combined = "Score.\n\nParameters\n----------\nx : int\n    one.\ny, z : the others.\n**settings\n    more.\n"
    ((line, message),) = check.problems(combined)
    assert line == 6 and "'y, z' names several items" in message


def test_every_docstring_of_the_package_is_numpydoc():
    """The whole package as the reference reads it: no Google-style section, no entry naming
    several parameters, and nothing griffe's numpy parser warns about."""
    check = _extension("griffe_numpy")
    prose = _griffe_prose()
    package = _griffe_load("arts_metric", prose.ProseParameters)
    warnings: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: warnings.append(record.getMessage())
    griffe_logger = logging.getLogger("griffe")
    griffe_logger.addHandler(handler)
    found = []
    try:
        for obj in _objects(package):
            if obj.docstring is None:
                continue
            obj.docstring.parse("numpy")  # griffe warns on what it cannot read
            found += [f"{obj.path} line {line}: {message}" for line, message in check.problems(obj.docstring.value)]
    finally:
        griffe_logger.removeHandler(handler)
    assert not found and not warnings, "\n".join(found + warnings)


@pytest.mark.slow
def test_a_docstring_that_is_not_numpydoc_stops_the_strict_build(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("::: pkg.score\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: check\nplugins:\n  - mkdocstrings:\n      handlers:\n        python:\n"
        "          paths: [.]\n          options:\n            docstring_style: numpy\n"
        f"            extensions:\n              - {DOCS / 'hooks' / 'griffe_numpy.py'}:NumpyStyle\n",
        encoding="utf-8",
    )
    numpy_doc = '"""Score.\n\n    Parameters\n    ----------\n    a : int\n        one.\n    """'
    (tmp_path / "pkg" / "__init__.py").write_text(f"def score(a):\n    {numpy_doc}\n", encoding="utf-8")
    assert _mkdocs_build(tmp_path, tmp_path / "site").returncode == 0
    google_doc = '"""Score.\n\n    Args:\n        a: one.\n    """'
    (tmp_path / "pkg" / "__init__.py").write_text(f"def score(a):\n    {google_doc}\n", encoding="utf-8")
    proc = _mkdocs_build(tmp_path, tmp_path / "site")
    assert proc.returncode != 0
    assert "pkg/__init__.py:4: pkg.score: Google-style section 'Args:'" in proc.stderr
    # and what griffe's own parser warns about reaches MkDocs too
    unknown_doc = numpy_doc.replace("a : int", "b : int")
    (tmp_path / "pkg" / "__init__.py").write_text(f"def score(a):\n    {unknown_doc}\n", encoding="utf-8")
    proc = _mkdocs_build(tmp_path, tmp_path / "site")
    assert proc.returncode != 0 and "Parameter 'b' does not appear in the function signature" in proc.stderr


def test_the_reference_lists_every_scoring_setting_with_its_default_type_and_meaning():
    from arts_metric.scoring.config import ScoringConfig

    settings = _extension("griffe_settings")
    config = _griffe_load("arts_metric.scoring.config", settings.SettingsParameters)
    sections = config["ScoringConfig"].docstring.parse("numpy")
    (parameters,) = [s.value for s in sections if s.kind is griffe.DocstringSectionKind.parameters]
    assert [p.name for p in parameters] == list(ScoringConfig.names())
    fields = {f.name: f for f in ScoringConfig.__dataclass_fields__.values()}
    for p in parameters:
        f = fields[p.name]
        default = list(f.default) if isinstance(f.default, tuple) else f.default
        assert (str(p.annotation), p.default) == (f.metadata["type"], repr(default)), p.name
        assert html.unescape(p.description).lower() == f"{f.metadata['help']}.".lower(), p.name


# --- one interval for a figure, whichever page quotes it ------------------------------------

#: A quote of the learned judge's Spearman with the ARTS94 majority (.810, or 0.8099 in a results
#: table; "0.810" is another figure of the ceiling's table) and the interval written after it
#: (in the same table row or sentence).
QUOTE_WHOLE = re.compile(r"(?<![\d.])(?:\.810|0\.8099)(?!\d)[\s|]*[(\[]\s*(-?0?\.\d+),\s*(-?0?\.\d+)\s*[)\]]")
#: How the interval was resampled, as every page quoting it says.
RESAMPLING = re.compile(r"bootstrap (?:interval )?over texts[ ,(]+2,?000 resamples, seed 0")


def _every_page() -> dict[str, str]:
    """Every text a reader meets, as shown: the README, every docs page with its markers
    expanded, the metric card and the Space's About tab."""
    from arts_metric.space_app.about import about_markdown

    hook = _hook()
    pages = {"README.md": (REPO / "README.md").read_text(encoding="utf-8")}
    for path in sorted(DOCS.rglob("*.md")):
        pages[str(path.relative_to(REPO))] = hook.expand(path.read_text(encoding="utf-8"))
    pages["metric_card.md"] = (REPO / "metric_card.md").read_text(encoding="utf-8")
    pages["the Space's About tab"] = "\n\n".join(about_markdown())
    return pages


def test_every_page_quotes_one_interval_for_the_learned_judges_arts94_spearman():
    hook = _hook()
    lines = hook.results_table("learned_judge_accuracy.md", 1).splitlines()
    row = next(cells for cells in map(hook._cells, lines[2:]) if cells[0].startswith("learned judge (learned-4"))
    assert f"{float(row[1]):.3f}" == "0.810"
    the_interval = tuple(float(x) for x in re.findall(r"-?\d\.\d+", row[2]))
    quoted: dict[str, set] = {}
    pages = _every_page()
    for name, text in pages.items():
        # sections about ARTS94 (a heading starts a section), where .810 is that figure
        for section in re.split(r"^#{1,6} .*$", text, flags=re.M):
            if re.search(r"ARTS94|majority", section):
                for lo, hi in QUOTE_WHOLE.findall(section):
                    quoted.setdefault(name, set()).add((float(lo), float(hi)))
    other = {name: found - {the_interval} for name, found in quoted.items() if found - {the_interval}}
    assert not other, f"intervals other than {the_interval} quoted for .810: {other}"
    assert {"README.md", "docs/results.md", "metric_card.md", "the Space's About tab"} <= set(quoted)
    unstated = [name for name in quoted if not RESAMPLING.search(" ".join(pages[name].split()))]
    assert not unstated, f"pages quoting the interval without saying how it was resampled: {unstated}"


def test_the_metric_card_table_is_rendered_from_the_benchmark_output(tmp_path, monkeypatch):
    hook = _hook()
    card = (REPO / "metric_card.md").read_text(encoding="utf-8")
    assert hook.card_table() in card
    assert "| .810 [.708, .878] |" in hook.card_table()  # the learned judge's row, from arts94_metrics.md
    original = (hook.RESULTS / "arts94_metrics.md").read_text(encoding="utf-8")
    (tmp_path / "arts94_metrics.md").write_text(original.replace("0.810 [0.708, 0.878]", "0.999 [0.111, 0.222]"))
    monkeypatch.setattr(hook, "RESULTS", tmp_path)
    assert "| .999 [.111, .222] |" in hook.card_table()
    (tmp_path / "arts94_metrics.md").write_text(original.replace("percentile bootstrap over texts", "a bootstrap"))
    with pytest.raises(ValueError, match="does not say how its intervals were resampled"):
        hook.card_table()


# --- examples that run as written -------------------------------------------------------------


def _example_pages() -> dict[str, str]:
    """The README, every docs page and the metric card, as written (Markdown)."""
    pages = {"README.md": (REPO / "README.md").read_text(encoding="utf-8")}
    for path in sorted(DOCS.rglob("*.md")):
        pages[str(path.relative_to(REPO))] = path.read_text(encoding="utf-8")
    pages["metric_card.md"] = (REPO / "metric_card.md").read_text(encoding="utf-8")
    return pages


def test_every_python_example_defines_what_it_uses_or_is_marked_a_fragment():
    found = []
    for name, text in _example_pages().items():
        for code in PYTHON_BLOCK.findall(text):
            if code.startswith(FRAGMENT):
                assert len(code.splitlines()[0]) > len(FRAGMENT) + 10, f"{name}: say what the fragment needs"
        for code in python_examples(text):
            if undefined_names(code):
                found.append(f"{name}: {', '.join(undefined_names(code))} undefined in\n{code}")
    assert not found, "\n".join(found)


#: ``evaluate.load`` of a module other than ARTS (SARI, ...): evaluate fetches it from the Hub.
HUB_LOAD = re.compile(r"""evaluate\.load\(\s*["'](?!arts["'])[\w/-]+["']""")


def test_an_example_that_needs_the_network_says_so():
    found = []
    for name, text in _example_pages().items():
        for block in re.finditer(r"^```(?:python|pycon)\n.*?^```$", text, re.S | re.M):
            if HUB_LOAD.search(block.group(0)):
                section = re.split(r"^#{1,6} .*$", text[: block.start()], flags=re.M)[-1]
                if "network" not in section:
                    found.append(f"{name}: {HUB_LOAD.search(block.group(0)).group(0)}")
    assert not found, f"examples loading a module from the Hub without saying it needs the network: {found}"


@pytest.fixture(scope="module")
def example_env(tmp_path_factory) -> dict:
    """One offline environment for the examples (they shared one when they ran in a row)."""
    return registered_env(tmp_path_factory.mktemp("examples_env"))


#: (page, code) of every ```python block that runs as a script, in page order.
PYTHON_EXAMPLES = [(name, code) for name, text in _example_pages().items() for code in python_examples(text)]


def test_the_python_examples_are_found():
    assert {"README.md", "docs/guides/scale.md", "docs/guides/rank-systems.md"} <= {n for n, _ in PYTHON_EXAMPLES}


# One test per example: each needs a fresh interpreter, and test processes can share them out.
@pytest.mark.slow
@pytest.mark.parametrize("name, code", PYTHON_EXAMPLES, ids=[f"{n}:{i}" for i, (n, _) in enumerate(PYTHON_EXAMPLES)])
def test_every_python_example_runs_as_written(tmp_path, example_env, name, code):
    """Every ```python block of the README, the docs and the metric card that is not marked a
    fragment runs in a fresh offline interpreter, from a folder holding ``examples/``."""
    run_example(code, tmp_path, example_env, "example")


# --- the command line page and long tables -----------------------------------------------


def test_the_command_line_page_fits_its_column_and_describes_no_machine():
    from arts_metric.cli import SUBCOMMANDS, _registration_line

    hook = _hook()
    for command in ("arts", *(name.replace("_", "-") for name in SUBCOMMANDS)):
        text = hook.cli_help(command)
        assert text.startswith("```text\nusage: arts")
        too_wide = [line for line in text.splitlines() if len(line) > 80]
        assert not too_wide, (command, too_wide)
    page = re.sub(r"\s", "", hook.expand((DOCS / "cli.md").read_text(encoding="utf-8")))
    assert re.sub(r"\s", "", _registration_line()) not in page  # this machine's state
    assert "hasbeenrun" not in page and "Firststepafterinstalling" not in page


def test_a_long_results_table_is_collapsed():
    hook = _hook()
    block = hook.expand("[[results: placement_budget.md, table 1, collapsed]]\n")
    table = hook.results_table("placement_budget.md", 1)
    rows = len(table.splitlines()) - 2
    assert block.startswith(f'??? note "The whole table ({rows} rows)"\n\n')
    assert block.split("\n\n", 1)[1].rstrip("\n") == "\n".join(f"    {line}" for line in table.splitlines())
    with pytest.raises(ValueError, match="expected 'NAME.md, table N'"):
        hook.expand("[[results: placement_budget.md, table 1, folded]]\n")
    # no page shows a table longer than 40 rows open
    long_tables = []
    for name, text in _user_pages().items():
        for found in re.finditer(r"(?:^\|.*\|\n)+", hook.expand(text), re.M):
            if len(found.group(0).splitlines()) - 2 > 40:
                long_tables.append(f"{name}: {found.group(0).splitlines()[0][:80]}")
    assert not long_tables, long_tables


@pytest.mark.slow
def test_the_site_reads_without_sideways_scrolling_or_a_table_pages_long(site):
    import functools
    import http.server
    import threading

    from browser import chromium

    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with chromium() as browser:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(f"http://127.0.0.1:{server.server_port}/cli/")
            clipped = page.evaluate(
                "() => Array.from(document.querySelectorAll('pre > code'))"
                ".filter(c => c.scrollWidth > c.clientWidth + 1).map(c => c.innerText.slice(0, 60))"
            )
            assert not clipped, clipped
            page.goto(f"http://127.0.0.1:{server.server_port}/results/")
            heights = page.evaluate(
                "() => Array.from(document.querySelectorAll('table')).filter(t => t.checkVisibility())"
                ".map(t => [Math.round(t.getBoundingClientRect().height), t.innerText.slice(0, 40)])"
            )
            assert heights and max(h for h, _ in heights) < 3000, sorted(heights)[-3:]
            assert page.evaluate("() => document.querySelectorAll('details:not([open]) table').length") == 1
    finally:
        server.shutdown()


def test_the_reference_shows_a_constant_default_as_its_value():
    from arts_metric.pool import DEFAULT_POOL
    from arts_metric.systems.api import VIEWS
    from arts_metric.systems.resampling import DEFAULT_LEVEL, DEFAULT_RESAMPLES

    defaults = _extension("griffe_defaults")
    package = _griffe_load("arts_metric", defaults.ConstantDefaults)
    shown = {
        ("systems.resampling", "bootstrap_counts", "n_resamples"): repr(DEFAULT_RESAMPLES),
        ("systems.resampling", "percentile_interval", "level"): repr(DEFAULT_LEVEL),
        ("systems.api", "compare_systems", "views"): repr(VIEWS),
        ("pool", "load_pool", "spec"): repr(DEFAULT_POOL),
    }
    for (module, function, parameter), value in shown.items():
        func = package[f"{module}.{function}"]
        assert str(func.parameters[parameter].default) == value, (module, function, parameter)
    # annotations are types, not quoted strings
    assert str(package["judges.get_judge"].parameters["spec"].annotation) == "str | Judge"
    assert defaults.constant_value("arts_metric.pool", "load_pool") == (False, None)  # not a constant


def test_the_top_of_the_package_holds_at_most_ten_modules():
    """The package's top level is its folders by role; at most 10 modules sit beside them."""
    modules = sorted(
        p.name for p in (REPO / "arts_metric").glob("*.py") if p.name not in ("__init__.py", "__main__.py")
    )
    assert len(modules) <= 10, modules


@pytest.mark.parametrize(
    "old, new",
    [
        ("arts_metric.elo", "arts_metric.ratings.elo"),
        ("arts_metric.readability", "arts_metric.text.formulas"),
        ("arts_metric.bulk", "arts_metric.scoring.bulk"),
        ("arts_metric.config", "arts_metric.scoring.config"),
        ("arts_metric.languages.judge", "arts_metric.judges.multilingual"),
    ],
)
def test_an_old_module_path_still_imports_the_module_and_names_its_new_path(old, new):
    code = (
        "import importlib, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        f"new = importlib.import_module({new!r})\n"
        "try:\n"
        f"    importlib.import_module({old!r})\n"
        "except DeprecationWarning as w:\n"
        "    print(w)\n"
        "warnings.simplefilter('ignore', DeprecationWarning)\n"
        f"print(importlib.import_module({old!r}) is new)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    message, same = proc.stdout.strip().splitlines()
    assert message.startswith(f"{old} moved to {new}") and same == "True"


def test_the_scoring_modules_old_names_still_work_with_a_warning():
    import arts_metric.scoring
    from arts_metric.scoring.api import score_texts

    with pytest.warns(DeprecationWarning, match="arts_metric.scoring.score_texts moved to arts_metric.scoring.api"):
        assert arts_metric.scoring.score_texts is score_texts
