"""Reading the ARTS data: pools, match schedules and judgment histories.

The data lives outside this repository (the texts carry their corpora's
licences). It is found, in this order, at an explicit ``data_dir`` argument,
at ``$ARTS_DATA_DIR``, or at ``../shared/arts`` beside the repository. All
files are plain JSON / JSON Lines; nothing is ever unpickled.

Conventions (same as the files): a history row is
``{"match", "a", "b", "harder", "time"}`` where ``harder`` is the index of the
text judged *harder* to understand (the winner of the match) or ``None`` when
the judge gave no usable answer.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from arts_metric.text.sentences import split_sentences

BUILTIN_POOLS = ("arts94", "arts300", "arts3000")

_HOW_TO_GET = (
    "The ARTS data (pools, pairs, histories) was not found. Pass data_dir=..., "
    "set ARTS_DATA_DIR to the folder that holds pools/, pairs/ and histories/, "
    "or place it at ../shared/arts beside the repository. The data is the JSON "
    "conversion of the authors' release (github.com/irgroup/ARTS, Zenodo)."
)


class ARTSDataNotFoundError(FileNotFoundError):
    """Raised when the ARTS data folder cannot be located."""


def find_data_dir(data_dir: str | os.PathLike | None = None) -> Path:
    """Locate the ARTS data folder (see module docstring for the search order)."""
    candidates: list[Path] = []
    if data_dir is not None:
        path = Path(data_dir).expanduser()
        if not (path / "pools").is_dir():
            raise ARTSDataNotFoundError(f"{path} has no pools/ folder. {_HOW_TO_GET}")
        return path
    env = os.environ.get("ARTS_DATA_DIR")
    if env:
        path = Path(env).expanduser()
        if not (path / "pools").is_dir():
            raise ARTSDataNotFoundError(f"ARTS_DATA_DIR={env} has no pools/ folder. {_HOW_TO_GET}")
        return path
    repo_root = Path(__file__).resolve().parent.parent
    candidates.append(repo_root.parent / "shared" / "arts")
    candidates.append(Path.cwd().parent / "shared" / "arts")
    for path in candidates:
        if (path / "pools").is_dir():
            return path
    raise ARTSDataNotFoundError(_HOW_TO_GET + f" (looked in: {', '.join(map(str, candidates))})")


#: The development sets of paragraphs and documents at known levels (benchmarks/levels.py).
DEV_FILES = ("cochrane_pls_val.jsonl", "onestopenglish_dev.jsonl")


def find_dev_dir(dev_dir: str | os.PathLike | None = None) -> Path:
    """The folder of the development sets: ``dev_dir``, else ``$ARTS_DEV_DIR``, else
    ``../shared/dev`` beside the repository; a ``FileNotFoundError`` naming where it
    looked when they are missing."""
    given = dev_dir or os.environ.get("ARTS_DEV_DIR")
    candidates = (
        [Path(given).expanduser()] if given else [Path(__file__).resolve().parent.parent.parent / "shared" / "dev"]
    )
    for path in candidates:
        if all((path / f).is_file() for f in DEV_FILES):
            return path
    raise FileNotFoundError(
        f"development sets not found in {', '.join(map(str, candidates))}: expected {' and '.join(DEV_FILES)} "
        "(set ARTS_DEV_DIR or pass --dev-dir)"
    )


def split_cochrane_reviews(reviews: list[dict]) -> dict[str, list]:
    """Cochrane reviews (rows of ``cochrane_pls_val.jsonl``) split in two by their place in
    the list, the split learned-4 is trained and measured on.

    Returns ``train_reviews`` (the even-numbered rows, 0, 2, ...; learned-4 trains on their
    sentences), ``train_abstract`` and ``train_summary`` (those reviews' sentences, in order),
    ``held_reviews`` (the odd-numbered rows, which no shipped judge is fitted on), and
    ``held_abstract`` and ``held_summary``: the held-out reviews' sentences less any sentence
    also found in a training review (a stock phrase such as a heading), so that a probe of
    held-out sentences reads none a judge was fitted on.
    """
    train, held = list(reviews[0::2]), list(reviews[1::2])

    def sentences(rows: list[dict], key: str) -> list[str]:
        return [x for r in rows for x in split_sentences(r[key])]

    out: dict[str, list] = {
        "train_reviews": train,
        "train_abstract": sentences(train, "abstract"),
        "train_summary": sentences(train, "plain_language_summary"),
        "held_reviews": held,
    }
    seen = set(out["train_abstract"]) | set(out["train_summary"])
    out["held_abstract"] = [x for x in sentences(held, "abstract") if x not in seen]
    out["held_summary"] = [x for x in sentences(held, "plain_language_summary") if x not in seen]
    return out


def cochrane_halves(dev_dir: str | os.PathLike | None = None) -> dict[str, list]:
    """:func:`split_cochrane_reviews` of the development set ``cochrane_pls_val.jsonl``
    (found by :func:`find_dev_dir`)."""
    return split_cochrane_reviews(_read_jsonl(find_dev_dir(dev_dir) / "cochrane_pls_val.jsonl"))


def _read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@dataclass(frozen=True)
class Match:
    """One recorded decision. ``harder`` is the index of the winner, or None."""

    match: int
    a: int
    b: int
    harder: int | None

    @property
    def outcome_a(self) -> float | None:
        """1.0 if ``a`` was judged harder, 0.0 if ``b`` was, None if no answer."""
        if self.harder is None:
            return None
        return 1.0 if self.harder == self.a else 0.0


def load_pool_rows(name: str, data_dir: str | os.PathLike | None = None) -> list[dict]:
    """Rows of a built-in pool (``arts94``, ``arts300``, ``arts3000``), sorted by ``index``."""
    if name not in BUILTIN_POOLS:
        raise ValueError(f"unknown pool {name!r}; built-in pools are {', '.join(BUILTIN_POOLS)}")
    rows = _read_jsonl(find_data_dir(data_dir) / "pools" / f"{name}.jsonl")
    rows.sort(key=lambda r: r["index"])
    return rows


def load_pairs(name: str, data_dir: str | os.PathLike | None = None) -> list[tuple[int, int]]:
    """The fixed match schedule of a built-in pool, as ``[(a, b), ...]``."""
    with open(find_data_dir(data_dir) / "pairs" / f"{name}_pairs.json", encoding="utf-8") as fh:
        return [(int(a), int(b)) for a, b in json.load(fh)]


def parse_history(rows: Iterable[dict], source: str = "history") -> list[Match]:
    """Validate history rows and return them as :class:`Match` in file order."""
    matches = []
    for i, row in enumerate(rows):
        try:
            a, b, harder = int(row["a"]), int(row["b"]), row["harder"]
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{source}: row {i} is not a history row ({exc!r}): {row!r}") from None
        if harder is not None and harder not in (a, b):
            raise ValueError(f"{source}: row {i}: harder={harder!r} is neither a={a} nor b={b}")
        matches.append(Match(int(row.get("match", i)), a, b, None if harder is None else int(harder)))
    return matches


def load_history(pool: str, judge: str, run: str, data_dir: str | os.PathLike | None = None) -> list[Match]:
    """A recorded history, e.g. ``load_history("arts94", "human", "majority")`` or
    ``load_history("arts94", "gpt-4-1106-preview", "pairwise-run1")``."""
    path = find_data_dir(data_dir) / "histories" / pool / judge / f"{run}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"no recorded history at {path}")
    return parse_history(_read_jsonl(path), source=str(path))


def list_histories(pool: str, judge: str, data_dir: str | os.PathLike | None = None) -> list[str]:
    """Run names (file stems) recorded for a pool and judge, sorted."""
    folder = find_data_dir(data_dir) / "histories" / pool / judge
    return sorted(p.stem for p in folder.glob("*.jsonl") if p.stem != "pointwise")


def load_pointwise(pool: str, judge: str, data_dir: str | os.PathLike | None = None) -> list[dict]:
    """Recorded individual-score answers ``{index, text, answer, time}`` (prompt A.2.4)."""
    return _read_jsonl(find_data_dir(data_dir) / "histories" / pool / judge / "pointwise.jsonl")


def load_listwise(pool: str, judge: str, data_dir: str | os.PathLike | None = None) -> list[int]:
    """Recorded listwise ranking (prompt A.2.3): indices as returned, easiest first."""
    path = find_data_dir(data_dir) / "histories" / pool / judge / "listwise.json"
    with open(path, encoding="utf-8") as fh:
        return [int(x) for x in json.load(fh)]
