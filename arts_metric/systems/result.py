"""The result of a system comparison, :class:`SystemComparison`: its tables as
pandas DataFrames and how they are written to a folder (CSV, Markdown, JSON, PNG).
"""

from __future__ import annotations

import json
import math
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

#: Leaderboard columns shown in Markdown (and printed by ``arts compare``), with their headers.
_MD_INTERVALS = (
    ("arts_mean", "ARTS mean [95% CI]"),
    ("arts_delta_mean", "ARTS delta [95% CI]"),
    ("p_output_easier_mean", "P(easier than source) [95% CI]"),
    ("simplicity_rating", "simplicity rating [95% CI]"),
)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return _json_safe(value.item())
    return value


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [_json_safe(r) for r in df.to_dict("records")]


def _num(value: Any, digits: int) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.{digits}f}"


def format_p(value: Any) -> str:
    """A p-value as printed: three decimals, four below 0.001, ``< 1e-4`` below that (the
    randomization test's resolution)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if value < 1e-4:
        return "< 1e-4"
    return f"{value:.4f}" if value < 0.001 else f"{value:.3f}"


def markdown_table(head: list[str], rows: list[list[str]]) -> str:
    """A GitHub Markdown table (numbers right-aligned)."""
    align = ["---"] + ["---:"] * (len(head) - 1)
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(align) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines) + "\n"


@dataclass
class SystemComparison:
    """What :func:`arts_metric.systems.compare_systems` returns.

    Conventions: ``arts`` in [0, 1] and ``rating`` (Elo points, mean 1200) are
    **higher = harder**; ``arts_delta`` is positive when outputs are easier than
    their sources; ``win_rate`` is the share of head-to-head matches in which a
    system's output was judged the **harder** one (ARTS: the winner of a match is
    the harder text), so a simpler system has a lower win rate. For reading as a
    leaderboard, ``simplicity_rating`` (2400 - ``rating``, Elo points) and
    ``judged_simpler`` (1 - ``win_rate``: the mean probability, over a system's matches, that its
    output was judged the simpler one) are **higher = simpler**, and ``rank`` is
    shared by systems whose pairwise test is not significant (p >= 0.05).

    Attributes
    ----------
    leaderboard : one row per system or reference set, simplest first: ``rank, system,
        kind, n, n_wordless`` (outputs without a word: punctuation, digits or symbols
        only, or a letter alone; both views put them at the hardest end), ``arts_mean,
        arts_mean_low, arts_mean_high, arts_delta_mean(_low/_high),
        p_output_easier_mean(_low/_high) (judges with a close-pair method),
        rating, rating_low, rating_high, win_rate, simplicity_rating(_low/_high), judged_simpler``, each formula's ``<f>_mean(_low/_high)``
        and ``human_mean`` when human scores were given.
    pairwise : one row per pair (``system_a`` simpler in the leaderboard): ``n``,
        ``arts_mean_diff`` (a - b) with its interval, ``p_value`` (paired randomization
        test over inputs), ``matches`` (decided head-to-head matches), ``win_rate_a``
        (share in which a's output was judged harder) with its interval and ``win_rate_p_value``.
    win_rates : square table: row system judged harder than column system, share of matches.
    per_output : one row per system and input: ``system, kind, input, text`` and every measure.
    correlations : agreement with human scores by ``level`` (system / segment) and ``measure``
        (empty without human scores).
    info : settings, judge description, request and match counts, tests used.
    """

    leaderboard: pd.DataFrame
    pairwise: pd.DataFrame
    win_rates: pd.DataFrame
    per_output: pd.DataFrame
    correlations: pd.DataFrame
    info: dict[str, Any] = field(default_factory=dict)

    def to_markdown(self) -> str:
        """The leaderboard as a Markdown table (what ``arts compare`` prints): simplest first,
        ranks shared where the pairwise tests cannot separate systems, the simplicity rating
        (higher = simpler, see :data:`~arts_metric.systems.ranks.SIMPLICITY_NOTE`)."""
        lb = self.leaderboard
        formulas = [
            c[: -len("_mean")]
            for c in lb.columns
            if c.endswith("_mean") and c not in ("arts_mean", "arts_delta_mean", "p_output_easier_mean", "human_mean")
        ]
        shown = [(c, h) for c, h in _MD_INTERVALS if lb[c].notna().any()]
        # outputs without a word (scored as the hardest), shown when a system has any
        wordless = "n_wordless" in lb and bool((lb["n_wordless"] > 0).any())
        head = ["rank", "system", "n"] + (["without a word"] if wordless else []) + [h for _, h in shown]
        if lb["judged_simpler"].notna().any():
            head.append("mean P(judged simpler)")
        head += formulas + (["human"] if "human_mean" in lb else [])
        if "meaning_kept" in lb:
            head.append("meaning kept (flagged)")
        rows = []
        for r in lb.to_dict("records"):
            name = r["system"] + (" (ref)" if r["kind"] == "reference" else "")
            cells = [str(r["rank"]), name, str(r["n"])] + ([str(r["n_wordless"])] if wordless else [])
            for col, _ in shown:
                digits = 0 if col == "simplicity_rating" else 3
                cells.append(
                    f"{_num(r[col], digits)} [{_num(r[col + '_low'], digits)}, {_num(r[col + '_high'], digits)}]"
                )
            if lb["judged_simpler"].notna().any():
                cells.append(_num(r["judged_simpler"], 3))
            cells += [_num(r[f"{f}_mean"], 2) for f in formulas]
            if "human_mean" in lb:
                cells.append(_num(r["human_mean"], 3))
            if "meaning_kept" in lb:
                cells.append(f"{_num(r['meaning_kept'], 2)} ({r['meaning_flagged']})")
            rows.append(cells)
        return markdown_table(head, rows)

    def pairwise_markdown(self) -> str:
        """The pairwise table as Markdown."""
        head = [
            "system a",
            "system b",
            "ARTS diff a-b [95% CI]",
            "p",
            "matches",
            "mean P(a judged simpler)",
            "p (head-to-head)",
        ]
        rows = []
        for r in self.pairwise.to_dict("records"):
            rows.append(
                [
                    r["system_a"],
                    r["system_b"],
                    f"{_num(r['arts_mean_diff'], 3)} [{_num(r['arts_mean_diff_low'], 3)}, {_num(r['arts_mean_diff_high'], 3)}]",
                    format_p(r["p_value"]),
                    str(r["matches"]),
                    _num(1.0 - r["win_rate_a"], 3),
                    format_p(r["win_rate_p_value"]),
                ]
            )
        return markdown_table(head, rows)

    def figure(self) -> Any:
        """The leaderboard figure (a matplotlib ``Figure``): see :func:`arts_metric.systems.figure.plot_comparison`."""
        from arts_metric.systems.figure import plot_comparison

        return plot_comparison(self)

    def to_dir(self, path: str | os.PathLike) -> dict[str, Path]:
        """Write every table to folder ``path`` (created if needed) and return the files by name:
        ``leaderboard.csv/.md/.json``, ``pairwise.csv/.md``, ``win_rates.csv``,
        ``per_output.csv``, ``correlations.csv`` (with human scores), ``comparison.json``
        (``info``) and ``leaderboard.png`` (needs matplotlib, the ``plot`` extra)."""
        out = Path(path)
        if out.exists() and not out.is_dir():
            raise ValueError(f"{out} exists and is not a folder")
        out.mkdir(parents=True, exist_ok=True)
        files: dict[str, Path] = {}

        def put(name: str, text: str) -> None:
            files[name] = out / name
            files[name].write_text(text, encoding="utf-8")

        put("leaderboard.csv", self.leaderboard.to_csv(index=False))
        put("leaderboard.md", self.to_markdown())
        put("leaderboard.json", json.dumps(_records(self.leaderboard), indent=1, ensure_ascii=False) + "\n")
        put("pairwise.csv", self.pairwise.to_csv(index=False))
        put("pairwise.md", self.pairwise_markdown())
        put("win_rates.csv", self.win_rates.to_csv(index_label="system"))
        put("per_output.csv", self.per_output.to_csv(index=False))
        if len(self.correlations):
            put("correlations.csv", self.correlations.to_csv(index=False))
        put("comparison.json", json.dumps(_json_safe(self.info), indent=1, ensure_ascii=False) + "\n")
        try:
            fig = self.figure()
        except ImportError as exc:
            warnings.warn(f"leaderboard.png not written: {exc} (install the 'plot' extra)", stacklevel=2)
        else:
            files["leaderboard.png"] = out / "leaderboard.png"
            fig.savefig(files["leaderboard.png"], dpi=120)
        return files
