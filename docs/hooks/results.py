"""MkDocs hook: pages quote the benchmark output files and the command line's own help.

A page writes a marker on a line of its own and the build puts the text in its place:

- ``[[results: levels.md]]``: ``benchmarks/results/levels.md`` without its title, its
  headings one level down;
- ``[[results: learned_judge_accuracy.md, table 2]]``: only that file's second table;
- ``[[results: placement_budget.md, table 1, collapsed]]``: that table in a closed block
  the reader opens, for a table too long to read in the page;
- ``[[cli: score]]``: what ``arts score --help`` prints;
- ``[[file: metric_card.md]]``: a Markdown file of the repository without its YAML front
  matter and title, headings as they are.

An unknown file, table or command stops the build. The PNG figures of
``benchmarks/results/`` are published under ``results/``. ``readme_table()`` renders the
agreement table the README quotes, ``readme_projection()`` its projection of 10 million
texts and ``card_table()`` the metric card's table beside the ARTS paper's Table 3
(``tests/test_docs.py`` checks the README and the card against them; ``python
docs/hooks/results.py`` prints them).
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
    (
        "ARTS as `compute` scores it (learned-4, the default, sentences averaged)",
        "ARTS, learned judge (default, offline)",
    ),
    ("learned judge (learned-4, `learned:v4`)", "the same judge reading each text whole"),
    (
        'ARTS as `compute` scores it with `judge="learned:v1"` (learned-1, sentences averaged)',
        'ARTS, the judge of releases up to 0.4 (`judge="learned:v1"`)',
    ),
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


#: The metric card's table beside the ARTS paper's Table 3: (the card's label, the row of
#: arts94_metrics.md, the row of the paper's table in that file or None, what the ρ cell adds).
CARD_ROWS = (
    ("Dale-Chall", "Dale-Chall", "Dale-Chall", ""),
    ("FRE", "FRE", "FRE", ""),
    ("GPT-3.5 pairwise", "GPT-3.5 pairwise (run1)", "GPT-3.5 pairwise", "runs"),
    ("GPT-4 ranking (GPT4^R)", "GPT-4 ranking", "GPT-4 ranking", ""),
    ("GPT-4 individual scores (GPT4^S)", "GPT-4 individual scores", "GPT-4 individual scores", ""),
    ("GPT-4 pairwise", "GPT-4 pairwise (run1)", "GPT-4 pairwise", " (run1)"),
    ("learned judge (the default judge, offline; each text read whole)", "Learned judge (ours)", None, ""),
)


def _short(figure: str) -> str:
    """``0.395`` as the card writes it: ``.395`` (``-`` stays)."""
    return re.sub(r"(?<![\d.])(-?)0\.", r"\1.", figure)


def card_table() -> str:
    """The metric card's table beside the ARTS paper's Table 3 and the line saying how its
    intervals were resampled, from ``benchmarks/results/arts94_metrics.md``."""
    ours_lines = results_table("arts94_metrics.md", 1).splitlines()
    paper_lines = results_table("arts94_metrics.md", 2).splitlines()
    ours = {cells[0]: cells for cells in map(_cells, ours_lines[2:])}
    paper = {cells[0]: cells for cells in map(_cells, paper_lines[2:])}
    header = _cells(ours_lines[0])
    column = {name: header.index(name) for name in ("A", "κ", "Spearman ρ [95% CI]", "Kendall τ [95% CI]")}
    out = [
        "| approach | paper A | paper κ | paper ρ | paper τ | ours A | ours κ | ours ρ [95% CI] | ours τ |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, row_name, paper_name, extra in CARD_ROWS:
        for name, table in ((row_name, ours), (paper_name, paper)):
            if name is not None and name not in table:
                raise ValueError(f"benchmarks/results/arts94_metrics.md has no row {name!r}")
        row = ours[row_name]
        rho = _short(row[column["Spearman ρ [95% CI]"]])
        if extra == "runs":
            runs = [float(ours[n][column["Spearman ρ [95% CI]"]].split()[0]) for n in ours if n.startswith(label)]
            extra = f" (run1; runs 1-{len(runs)}: {_short(f'{min(runs):.3f}')}-{_short(f'{max(runs):.3f}')})"
        tau = _short(row[column["Kendall τ [95% CI]"]].split()[0])
        published = [_short(c) for c in paper[paper_name][1:5]] if paper_name else ["-"] * 4
        cells = [label, *published, _short(row[column["A"]]), _short(row[column["κ"]]), rho + extra, tau]
        out.append("| " + " | ".join(cells) + " |")
    notes = results_text("arts94_metrics.md")
    resampling = re.search(r"95% intervals: [^.;]*bootstrap over texts \([^)]*\)", notes)
    if not resampling:
        raise ValueError("benchmarks/results/arts94_metrics.md does not say how its intervals were resampled")
    return "\n".join(out) + f"\n\n{resampling.group(0)[0].upper()}{resampling.group(0)[1:]}.\n"


def readme_projection() -> str:
    """The README's projection of 10 million texts: the last table of ``gpu.md`` (N GPUs) and of
    ``scale.md`` (N CPU actors), one row per line of either."""
    out = ["| 10 million texts on (projection) | sentences | paragraphs |", "|---|---|---|"]
    card = re.search(r"GPU: NVIDIA (\S+)", results_text("gpu.md"))
    if card is None:
        raise ValueError("benchmarks/results/gpu.md does not name its GPU ('GPU: NVIDIA ...')")
    for name, unit in (("gpu.md", f"{card.group(1)} GPU"), ("scale.md", "CPU actor")):
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


#: The width ``--help`` is rendered at: its lines fit the page's text column without scrolling.
HELP_COLUMNS = 80


def cli_help(command: str) -> str:
    """What ``arts COMMAND --help`` prints, at a fixed width of :data:`HELP_COLUMNS` columns.
    ``arts --help`` ends, in a terminal, with whether this machine has run ``arts register``;
    the page leaves that line out (it would describe the machine that built the site)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from arts_metric.cli import build_parser

    argv = [command, "--help"] if command != "arts" else ["--help"]
    out = io.StringIO()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(HELP_COLUMNS)
    try:
        parser = build_parser()
        parser.epilog = None  # the registration state of this machine
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            parser.parse_args(argv)
    finally:
        if old is None:
            os.environ.pop("COLUMNS")
        else:
            os.environ["COLUMNS"] = old
    if not out.getvalue().startswith("usage:"):
        raise ValueError(f"arts has no command {command!r}")
    return f"```text\n{out.getvalue().rstrip()}\n```\n"


def collapsed(table: str) -> str:
    """A table in a closed block the reader opens (pymdownx.details), titled with its row count."""
    rows = len(table.splitlines()) - 2
    body = "".join(f"    {line}\n" for line in table.splitlines())
    return f'??? note "The whole table ({rows} rows)"\n\n{body}'


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
        number = re.fullmatch(r"table (\d+)(, collapsed)?", table)
        if not number:
            raise ValueError(
                f"cannot read the marker {match.group(0)!r}: expected 'NAME.md, table N' or 'NAME.md, table N, collapsed'"
            )
        found = results_table(name, int(number.group(1)))
        return collapsed(found) if number.group(2) else found

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
    print(readme_projection())
    print(card_table(), end="")
