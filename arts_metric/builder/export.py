"""Exporting a build folder: write it as a Hugging Face dataset with its card, verify it, push it.

Layout of ``OUT`` after :func:`write_dataset` (what :func:`push_to_hub` uploads)::

    README.md                         dataset card (YAML header + provenance)
    data/train-00000-of-00001.parquet one row per text: index, id, text, arts, elo, rank, ...
    arts/pools/NAME.jsonl             the texts in the ARTS pool format ({index, id, text, ...})
    arts/pairs/NAME_pairs.json        the match schedule ([[a, b], ...])
    arts/histories/NAME/GROUP/RATER.jsonl   every rater's decisions (ARTS history format)
    arts/histories/NAME/majority/majority.jsonl
    report.json                       agreement report
    build.sqlite                      the decision store (kept locally, not uploaded)

``datasets.load_dataset(OUT, split="train")`` reads the Parquet file (the card's
``configs`` point at it), and ``arts_metric.data.load_history(NAME, GROUP,
RATER, data_dir=OUT / "arts")`` reads the histories, exactly like the
published ARTS data. ``arts`` is in [0, 1], higher = harder.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np

from arts_metric import __version__
from arts_metric.builder.aggregate import BuildResult
from arts_metric.builder.specs import slug
from arts_metric.builder.store import DecisionStore
from arts_metric.llm.report import request_summary

PARQUET_PATH = "data/train-00000-of-00001.parquet"
#: What is published (the SQLite store stays local: it is the working copy).
PUBLISH_PATTERNS = ["README.md", "data/*", "arts/**", "report.json"]


def _replace(path: Path, write: Callable[[str], None]) -> None:
    """Write ``path`` atomically: ``write(tmp)`` fills a temporary file unique to this call, which then
    replaces ``path`` (a reader never sees half a file; two writers never share a temporary file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _write_text(path: Path, text: str) -> None:
    _replace(path, lambda tmp: Path(tmp).write_text(text, encoding="utf-8"))


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    _write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def history_paths(result: BuildResult, name: str) -> dict[str, str]:
    """Rater name -> history path relative to the folder (``arts/histories/NAME/GROUP/RATER.jsonl``)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for r in result.raters:
        base = f"arts/histories/{slug(name)}/{slug(r['group'])}/{slug(r['name'])}"
        path, i = f"{base}.jsonl", 2
        while path in used:
            path, i = f"{base}-{i}.jsonl", i + 1
        used.add(path)
        out[r["name"]] = path
    return out


def write_dataset(
    result: BuildResult,
    store: DecisionStore,
    name: str,
    license: str = "unknown",
    language: str | None = None,
) -> Path:
    """Write Parquet, ARTS-format pool/pairs/histories, report and dataset card into the build folder."""
    import pandas as pd

    out = Path(result.out_dir)
    nm = slug(name)
    n = len(result.rows)
    wins = np.zeros(n, dtype=int)
    played = np.zeros(n, dtype=int)
    for m in result.majority:
        if m.harder is not None:
            played[m.a] += 1
            played[m.b] += 1
            wins[m.harder] += 1
    order = np.argsort(np.argsort(result.elo, kind="stable"), kind="stable")
    records = []
    for i, r in enumerate(result.rows):
        rec = {
            "index": i,
            "id": r["id"],
            "text": r["text"],
            "arts": float(result.scores[i]),
            "elo": float(result.elo[i]),
            "rank": int(order[i]) + 1,
            "matches": int(played[i]),
            "harder_wins": int(wins[i]),
        }
        # input columns are carried over; one named like ours (e.g. an old `arts`) as `input_<name>`
        rec.update({(f"input_{k}" if k in rec else k): v for k, v in r.items() if k not in ("index", "id", "text")})
        records.append(rec)
    _replace(out / PARQUET_PATH, lambda tmp: pd.DataFrame.from_records(records).to_parquet(tmp, index=False))

    _write_jsonl(
        out / "arts" / "pools" / f"{nm}.jsonl",
        [{"index": i, **{k: v for k, v in r.items() if k != "index"}} for i, r in enumerate(result.rows)],
    )
    _write_text(out / "arts" / "pairs" / f"{nm}_pairs.json", json.dumps([[a, b] for a, b in result.pairs]) + "\n")
    paths = history_paths(result, nm)
    for r in result.raters:
        _write_jsonl(out / paths[r["name"]], store.history(r["name"]))
    _write_jsonl(
        out / "arts" / "histories" / nm / "majority" / "majority.jsonl",
        [{"match": m.match, "a": m.a, "b": m.b, "harder": m.harder, "time": None} for m in result.majority],
    )
    rank_rate = _write_rank_rate(out, store)
    report = {**result.report, "name": nm, "histories": paths, "arts_metric_version": __version__}
    if rank_rate:
        report["rank_rate"] = rank_rate
    _write_text(out / "report.json", json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    _write_text(out / "README.md", dataset_card(result, store.meta(), nm, paths, license, language))
    return out


def _write_rank_rate(out: Path, store: DecisionStore) -> dict[str, str]:
    """Rank-and-rate answers from the web interface, one JSON-lines file per rater (if any)."""
    paths = {}
    for rater in store.rank_raters():
        rel = f"arts/rank_rate/{slug(rater)}.jsonl"
        _write_jsonl(out / rel, store.rank_history(rater))
        paths[rater] = rel
    return paths


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "n>1M"


def _fmt(x: Any) -> str:
    if x is None:
        return "–"
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x).replace("|", "\\|")


def dataset_card(
    result: BuildResult,
    meta: dict,
    name: str,
    paths: dict[str, str],
    license: str = "unknown",
    language: str | None = None,
) -> str:
    """The dataset card: YAML metadata (licence, configs) and provenance, raters, agreement."""
    import yaml

    rep = result.report
    header: dict[str, Any] = {
        "license": license,
        "pretty_name": f"ARTS dataset {name}",
        "tags": ["readability", "text-simplification", "arts", "pairwise-comparison", "elo"],
        "size_categories": [_size_category(len(result.rows))],
        "configs": [{"config_name": "default", "data_files": [{"split": "train", "path": "data/train-*.parquet"}]}],
    }
    if language:
        header["language"] = [language]
    sched = rep.get("schedule") or {}
    st = rep.get("schedule_stats") or {}
    lines = [
        "---",
        yaml.safe_dump(header, sort_keys=False, allow_unicode=True).rstrip(),
        "---",
        "",
        f"# {name}: an ARTS simplicity dataset",
        "",
        f"{len(result.rows)} texts, each with an **ARTS score** in [0, 1] (**higher = harder** to understand), "
        "built with the method of *ARTS: Assessing Readability & Text Simplicity* (Engelmann, Kreutz, Haak, "
        f'Schaer): pairwise "which text is easier to understand?" decisions, majority vote, Elo, rank scaling. '
        f"Made with arts-metric {meta.get('arts_metric_version', __version__)}.",
        "",
        "## Load",
        "",
        "```python",
        "import datasets",
        'ds = datasets.load_dataset("PATH_OR_REPO", split="train")  # columns: text, arts, elo, ...',
        "```",
        "",
        "## Columns",
        "",
        "| column | meaning |",
        "| --- | --- |",
        "| `index` | position in the pool; histories and pairs use it |",
        "| `id` | the text's identifier from the input |",
        "| `text` | exactly what the raters saw |",
        "| `arts` | `(rank - 1) / (N - 1)`, rank 1 = the lowest Elo = the easiest text (tied Elo ratings share "
        "their mean rank); higher = harder |",
        f"| `elo` | Elo rating after all majority decisions (start {rep['elo']['start']:g}, K = {rep['elo']['k']:g}, winner = harder text) |",
        "| `rank` | 1 = easiest |",
        "| `matches`, `harder_wins` | majority decisions the text took part in, and how many it was judged the harder text |",
        "",
        "Other columns are carried over from the input (renamed `input_<name>` where the name is one of the above).",
        "",
        "## Provenance",
        "",
        f"- Source: {meta.get('source') or 'not recorded'}",
        f"- Texts fingerprint (sha256 of the texts in order): `{meta.get('fingerprint', '')}`",
        f"- Created: {meta.get('created', '')}; last built: {meta.get('last_build', '')}",
    ]
    if meta.get("command"):
        lines.append(f"- Command: `{meta['command']}`")
    missing = rep.get("missing") or {}
    if missing:
        lines.append(
            "- **Incomplete**: exported with `--allow-incomplete`; matches without an answer: "
            + ", ".join(f"{_fmt(r)} {n} of {rep['matches']}" for r, n in missing.items())
            + " (left out of that rater's votes; a rerun of the build asks them)"
        )
    if sched.get("kind") == "seeded":
        lines.append(
            f"- Schedule: seeded, **seed {sched.get('seed')}**, {sched.get('matches_per_text')} matches per text "
            f"({rep['matches']} matches; every text appears in {st.get('appearances_min')} of them, "
            f"first in {st.get('first_min')}–{st.get('first_max')}; {st.get('repeated_pairs')} repeated pairs; "
            "no self-matches)"
        )
    else:
        lines.append(f"- Schedule: fixed pairs file (sha256 `{sched.get('sha256', '')}`), {rep['matches']} matches")
    lines += [
        f"- Majority vote of {rep['majority']['raters']} rater(s); ties broken by a coin seeded with "
        f"**{rep['seed']}** ({rep['majority']['ties_broken']} ties, {rep['majority']['undecided']} matches without "
        "any usable vote, skipped by Elo)",
        f"- Licence: `{license}`"
        + (
            " (set it with `--license`; texts keep the licence of their source)"
            if license in ("unknown", "other")
            else ""
        ),
        "",
        "## Raters",
        "",
        "| rater | spec | group | settings | prompt version | decided | unusable | missing | agreement with majority | Cohen's κ | Spearman ρ | history |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rep["raters"]:
        info = r.get("info") or {}
        settings = ", ".join(f"{k}={v}" for k, v in sorted((r.get("kwargs") or {}).items())) or "–"
        lines.append(
            f"| {_fmt(r['name'])} | `{_fmt(r['spec'])}` | {_fmt(r['group'])} | {_fmt(settings)} | "
            f"{_fmt(info.get('prompt_version'))} | {r['decided']} | {r['invalid']} | {r.get('missing', 0)} | "
            f"{_fmt(r['agreement'])} | "
            f"{_fmt(r['kappa'])} | {_fmt(r['spearman'])} | `{paths.get(r['name'], '')}` |"
        )
    requests = [(r["name"], request_summary((r.get("info") or {}).get("stats") or {})) for r in rep["raters"]]
    if any(line for _, line in requests):
        lines += [
            "",
            "## Requests",
            "",
            "What the LLM raters sent, summed over the runs of this build that finished (a run that was killed "
            "could not count its requests; its answers were cached and reused). By default each judgment costs "
            "one request; anything beyond that is listed.",
            "",
        ]
        lines += [f"- {_fmt(name)}: {line}" for name, line in requests if line]
    lines += [
        "",
        "## Agreement",
        "",
        f"Krippendorff's α (nominal) over all raters: **{_fmt(rep.get('alpha'))}**.",
        "",
        "| group | raters | Krippendorff's α | mean agreement with majority |",
        "| --- | --- | --- | --- |",
    ]
    for g, v in rep["groups"].items():
        lines.append(f"| {_fmt(g)} | {len(v['raters'])} | {_fmt(v['alpha'])} | {_fmt(v['mean_agreement'])} |")
    lines += [
        "",
        "## Files",
        "",
        "- `data/` – the scores (Parquet).",
        f"- `arts/pools/{name}.jsonl`, `arts/pairs/{name}_pairs.json`, `arts/histories/{name}/...` – texts, "
        "schedule and every rater's decisions in the ARTS format (`{match, a, b, harder, time}`, `harder` = "
        "the text judged harder, i.e. the one the rater did *not* pick as easier; `null` = an invalid answer: the "
        "rater answered, unusably; a match without any answer has no row).",
        "- `arts/rank_rate/` – rank-and-rate answers from the web interface, if any (README++ style: "
        "`ranking` easiest first, a CEFR level A1–C2 per text).",
        "- `report.json` – the agreement report.",
        "",
        "## Licence",
        "",
        f"`{license}`. Each text keeps the licence of the corpus it was taken from.",
        "",
    ]
    return "\n".join(lines)


def verify_dataset(out_dir: str | os.PathLike, cache_dir: str | os.PathLike | None = None) -> Any:
    """Load the folder with ``datasets.load_dataset(out_dir, split="train")`` and check it.

    Raises ValueError if the ``text`` or ``arts`` column is missing or a score
    lies outside [0, 1]. Returns the loaded ``datasets.Dataset``.
    """
    import datasets

    out = Path(out_dir)
    if not (out / "README.md").is_file() or not (out / PARQUET_PATH).is_file():
        raise ValueError(f"{out} is not an exported ARTS dataset (README.md or {PARQUET_PATH} missing)")
    ds = datasets.load_dataset(str(out), split="train", cache_dir=None if cache_dir is None else str(cache_dir))
    missing = {"text", "arts"} - set(ds.column_names)
    if missing:
        raise ValueError(f"{out}: the dataset lacks the columns {sorted(missing)}")
    arts = np.asarray(ds["arts"], dtype=float)
    if len(arts) and (np.isnan(arts).any() or arts.min() < 0 or arts.max() > 1):
        raise ValueError(f"{out}: arts scores must lie in [0, 1]")
    return ds


def push_to_hub(
    out_dir: str | os.PathLike,
    repo_id: str,
    token: str | None = None,
    private: bool | None = None,
    commit_message: str = "Upload ARTS dataset",
) -> Any:
    """Publish an exported folder as a Hub dataset repository.

    A thin call on what was verified locally: :func:`verify_dataset` first
    (offline), then ``HfApi.create_repo(..., repo_type="dataset",
    exist_ok=True)`` and ``HfApi.upload_folder`` of :data:`PUBLISH_PATTERNS`
    (card, Parquet, ARTS-format files, report; the SQLite store stays local).
    Needs network and a token with write access (``token`` or ``hf auth login``).
    Returns the ``CommitInfo`` of the upload.
    """
    from huggingface_hub import HfApi

    verify_dataset(out_dir)
    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    return api.upload_folder(
        folder_path=str(out_dir),
        repo_id=repo_id,
        repo_type="dataset",
        allow_patterns=PUBLISH_PATTERNS,
        commit_message=commit_message,
    )
