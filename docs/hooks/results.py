"""MkDocs hook: pages quote the benchmark output files and the command line's own help.

A page writes a marker on a line of its own and the build puts the text in its place:

- ``[[results: levels.md]]``: ``benchmarks/results/levels.md`` without its title, its
  headings one level down;
- ``[[results: learned_judge_accuracy.md, table 2]]``: only that file's second table;
- ``[[cli: score]]``: what ``arts score --help`` prints;
- ``[[file: metric_card.md]]``: a Markdown file of the repository without its YAML front
  matter and title, headings as they are.

An unknown file, table or command stops the build. The PNG figures of
``benchmarks/results/`` are published under ``results/``. ``readme_table()`` renders the
agreement table the README quotes and ``readme_projection()`` its projection of 10 million
texts (``tests/test_docs.py`` checks the README against both; ``python docs/hooks/results.py``
prints them).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
MARKER = re.compile(r"^\[\[(results|cli|file): *([^\]]+?)\]\]$", re.M)
TABLE = re.compile(r"(?:^\|.*\|\n)+", re.M)

# The README's headline rows: (the row's label in learned_judge_accuracy.md, the README's label).
README_ROWS = (
    ("ARTS as `compute` scores it (learned-1, sentences averaged)", "ARTS, learned judge (default, offline)"),
    ("learned judge (learned-1, `learned:v1`)", "the same judge reading each text whole"),
    ("GPT-4 pairwise run1 Elo", "GPT-4 pairwise judgments (Elo)"),
    ("length in characters", "length in characters"),
    ("FKGL", "Flesch-Kincaid grade (FKGL)"),
    ("FRE (negated: higher = easier)", "Flesch reading ease (FRE)"),
    ("Dale-Chall", "Dale-Chall"),
)


def results_text(name: str) -> str:
    """A benchmark output file without its title, headings one level down."""
    path = RESULTS / name
    if path.parent != RESULTS or not path.is_file():
        raise ValueError(f"no benchmark output file benchmarks/results/{name}")
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\A# .*\n+", "", text)
    return re.sub(r"^(#+) ", r"#\1 ", text, flags=re.M)


def results_table(name: str, number: int) -> str:
    """The ``number``-th (1-based) Markdown table of a benchmark output file."""
    tables = TABLE.findall(results_text(name))
    if not 1 <= number <= len(tables):
        raise ValueError(f"benchmarks/results/{name} has {len(tables)} tables, not a table {number}")
    return tables[number - 1]


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def readme_table() -> str:
    """The README's agreement table, from ``benchmarks/results/learned_judge_accuracy.md``."""
    lines = results_table("learned_judge_accuracy.md", 1).splitlines()
    header = _cells(lines[0])
    rows = {cells[0]: dict(zip(header, cells)) for cells in map(_cells, lines[2:])}
    out = [
        "| measure | Spearman with the human majority (95% CI) |",
        "|---|---|",
    ]
    for source, label in README_ROWS:
        if source not in rows:
            raise ValueError(f"benchmarks/results/learned_judge_accuracy.md has no row {source!r}")
        row = rows[source]
        out.append(f"| {label} | {row['Spearman']} {row['95% CI']} |")
    return "\n".join(out) + "\n"


def readme_projection() -> str:
    """The README's projection of 10 million texts: the last table of ``gpu.md`` (N GPUs) and of
    ``scale.md`` (N CPU actors), one row per line of either."""
    out = ["| 10 million texts on (projection) | sentences | paragraphs |", "|---|---|---|"]
    for name, unit in (("gpu.md", "H200 GPU"), ("scale.md", "CPU actor")):
        tables = TABLE.findall(results_text(name))
        if not tables:
            raise ValueError(f"benchmarks/results/{name} has no table")
        lines = tables[-1].splitlines()
        if _cells(lines[0]) not in (["GPUs", "sentences", "paragraphs"], ["actors", "sentences", "paragraphs"]):
            raise ValueError(f"the last table of benchmarks/results/{name} is not its projection: {lines[0]}")
        for n, sentences, paragraphs in map(_cells, lines[2:]):
            out.append(f"| {n} {unit}{'s' if n != '1' else ''} | {sentences} | {paragraphs} |")
    return "\n".join(out) + "\n"


def repository_file(name: str) -> str:
    """A Markdown file of the repository (``metric_card.md``) without front matter and title."""
    path = (ROOT / name).resolve()
    if path.parent != ROOT or path.suffix != ".md" or not path.is_file():
        raise ValueError(f"no Markdown file {name} at the repository's root")
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"\A---\n.*?\n---\n+", "", text, flags=re.S)
    return re.sub(r"\A# .*\n+", "", text)


def cli_help(command: str) -> str:
    """What ``arts COMMAND --help`` prints, at a fixed width of 100 columns."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from arts_metric.cli import build_parser

    argv = [command, "--help"] if command != "arts" else ["--help"]
    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            build_parser().parse_args(argv)
    finally:
        if old is None:
            os.environ.pop("COLUMNS")
        else:
            os.environ["COLUMNS"] = old
    if not out.getvalue().startswith("usage:"):
        raise ValueError(f"arts has no command {command!r}")
    return f"```text\n{out.getvalue().rstrip()}\n```\n"


def expand(markdown: str) -> str:
    """The page with every marker replaced."""

    def replace(match: re.Match) -> str:
        kind, arg = match.group(1), match.group(2).strip()
        if kind == "cli":
            return cli_help(arg)
        if kind == "file":
            return repository_file(arg)
        name, _, table = (part.strip() for part in arg.partition(","))
        if not table:
            return results_text(name)
        number = re.fullmatch(r"table (\d+)", table)
        if not number:
            raise ValueError(f"cannot read the marker {match.group(0)!r}: expected 'NAME.md, table N'")
        return results_table(name, int(number.group(1)))

    return MARKER.sub(replace, markdown)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs' hook signature)
    return expand(markdown)


def on_files(files, config):
    from mkdocs.structure.files import File

    for png in sorted(RESULTS.glob("*.png")):
        files.append(File.generated(config, f"results/{png.name}", abs_src_path=str(png)))
    return files


if __name__ == "__main__":
    print(readme_table())
    print(readme_projection(), end="")
