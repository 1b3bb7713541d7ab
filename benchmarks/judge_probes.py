"""Does the sentence judge read words and ideas, or length? Prints, for the learned judges
learned-1 (``judge="learned:v1"``), learned-3 (``judge="learned:v3"``) and learned-4
(``judge="learned:v4"``, the default) beside
FKGL, FRE, Dale-Chall and word count measured in the same run, with the goal next to each
figure:

1. **Same length, other audience**: pairs of sentences whose word counts differ by at most
   one: (a) a SciTLDR TLDR of one sentence against a sentence of an elementary
   OneStopEnglish article: the share where the TLDR is rated harder (goal: at least .95 and
   at least the best formula); (b) a Cochrane abstract sentence against a sentence of a
   plain-language summary, both from the held-out half of the reviews (the odd-numbered rows;
   learned-4 trains on the even-numbered ones, :func:`arts_metric.data.split_cochrane_reviews`):
   the share where the abstract's is rated harder (goal: the best formula + .05); (c) a sentence of an advanced OneStopEnglish article against one of the
   elementary version of the same article (no goal: a floor that should not fall).
2. **Beyond length**: README++ English validation sentences: Spearman with the human CEFR
   level (goal .85) and the partial Spearman with log word count held fixed
   (:func:`arts_metric.ratings.stats.partial_spearman`; goal .60 and the best formula's + .15).
3. **Humans**: ARTS94 by ``compute``'s default (goal .83); ASSET dev pairs, two
   simplifications of one sentence judged by people: the share where the one people judged
   less simple gets the higher value (goal .75); and agreement with GPT-4 on ARTS3000 out of
   fold: the Spearman of the pool file's judge scores (cross-fitted) with GPT-4's Elo (goal:
   learned-1's - .05; learned-1's folds are plain 5-fold, learned-3's and learned-4's grouped
   by near-duplicates, which is stricter).
4. **Stability**: one word removed or written twice (never a sentence's first or last word,
   :func:`documents.edit_word`) in every README++ English validation sentence and 300 seeded
   sentences of the development sets: the 99th percentile and the largest ``|Δarts|``
   (goal: 99th percentile at most .05).
5. **Cost**: ``compute`` on 1,000 ARTS3000 texts, each judge twice, alternating, best of two:
   the default's throughput over learned-1's (goal 0.8x); and the default with
   ``precision="int8"`` on the same texts: the largest and mean ``|Δarts|`` against its fp32
   scores (goal .005) and its throughput over fp32's.

Every value is ``arts`` (pool ``arts3000``, exhaustive placement; the default rule: a text
is the mean of its sentences weighted by words) or the formula; a tie counts one half, and a
pair where a formula is undefined on one of its texts (no word in Latin script, ...) is left
out of that formula's share, as in ``documents.py``.

Sets (read at run time from ``../shared/dev`` or ``$ARTS_DEV_DIR`` and the ARTS data folder;
no text is stored in the repository or printed): SciTLDR (Cachola et al. 2020, dev split,
Apache-2.0), Cochrane (Devaraj et al. 2021, validation split, CC BY 4.0), OneStopEnglish
(Vajjala & Lucic 2018, CC BY-SA 4.0, validation only), README++ English val (Naous et al.
2024, MIT; learned-3 was chosen on it, not fitted), ASSET pairwise dev (Alva-Manchego et al.
2020, CC BY-NC 4.0, validation only), ARTS94 and ARTS3000 (Engelmann et al. 2024).

Writes ``benchmarks/results/judge_probes.md``. About 5 minutes on 2 CPU cores::

    .venv/bin/python benchmarks/judge_probes.py [--dev-dir DIR] [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from documents import edit_word  # noqa: E402
from levels import right  # noqa: E402

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.data import find_dev_dir  # noqa: E402
from arts_metric.judges import get_judge  # noqa: E402
from arts_metric.languages.readmepp import readmepp_rows  # noqa: E402
from arts_metric.pool import load_pool  # noqa: E402
from arts_metric.ratings.elo import ratings_from_history  # noqa: E402
from arts_metric.ratings.stats import partial_spearman  # noqa: E402
from arts_metric.scoring.api import score_texts  # noqa: E402
from arts_metric.text.features import words  # noqa: E402
from arts_metric.text.formulas import compute_formulas  # noqa: E402
from arts_metric.text.sentences import split_sentences  # noqa: E402

SEED = 0
RESULTS = REPO / "benchmarks" / "results"
#: The judges compared, the default last.
JUDGES = {"learned-1": "learned:v1", "learned-3": "learned:v3", "learned-4 (default)": "learned:v4"}
FORMULA_ROWS = {"fkgl": "FKGL", "fre": "FRE", "dale_chall": "Dale-Chall"}
N_STABILITY = 300
N_COST = 1000


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def share_higher(a: np.ndarray, b: np.ndarray) -> float:
    """Share of pairs where ``a`` > ``b`` (ties one half), among the pairs where both are defined
    (a formula is NaN on a text it does not apply to): :func:`levels.right` with ``a`` the harder."""
    return float(np.nanmean(right(b, a)))


def same_length_pairs(hard: list[str], easy: list[str], same_group: tuple[list, list] | None = None) -> np.ndarray:
    """Index pairs (i into ``hard``, j into ``easy``) whose word counts differ by at most one
    (and, with ``same_group``, whose groups are equal)."""
    nh = np.array([len(words(t)) for t in hard])
    ne = np.array([len(words(t)) for t in easy])
    close = np.abs(nh[:, None] - ne[None, :]) <= 1
    if same_group is not None:
        close &= np.asarray(same_group[0])[:, None] == np.asarray(same_group[1])[None, :]
    return np.argwhere(close)


def load_probes(dev_dir: Path, data_dir: Path | None) -> dict:
    tldr_rows = _jsonl(dev_dir / "scitldr_dev.jsonl")
    cochrane = _jsonl(dev_dir / "cochrane_pls_val.jsonl")
    ose = _jsonl(dev_dir / "onestopenglish_dev.jsonl")
    asset = _jsonl(dev_dir / "asset_pairwise_dev.jsonl")
    tldrs = [t for t in (r["tldr"] for r in tldr_rows) if len(split_sentences(t)) == 1]
    elementary = [(r["article"], s) for r in ose if r["level"] == "elementary" for s in split_sentences(r["text"])]
    advanced = [(r["article"], s) for r in ose if r["level"] == "advanced" for s in split_sentences(r["text"])]
    abstract_s = [s for r in cochrane for s in split_sentences(r["abstract"])]
    summary_s = [s for r in cochrane for s in split_sentences(r["plain_language_summary"])]
    halves = arts_data.split_cochrane_reviews(cochrane)  # learned-4 trained on the other half
    rpp = readmepp_rows("en", "val", dev_dir)
    rows94 = arts_data.load_pool_rows("arts94", data_dir)
    human94 = ratings_from_history(len(rows94), arts_data.load_history("arts94", "human", "majority", data_dir))
    el_text = [s for _, s in elementary]
    return {
        "tldr": (tldrs, el_text, same_length_pairs(tldrs, el_text)),
        "cochrane": (
            halves["held_abstract"],
            halves["held_summary"],
            same_length_pairs(halves["held_abstract"], halves["held_summary"]),
        ),
        "ose": (
            [s for _, s in advanced],
            el_text,
            same_length_pairs(
                [s for _, s in advanced], el_text, ([a for a, _ in advanced], [a for a, _ in elementary])
            ),
        ),
        "readmepp": ([r["sentence"] for r in rpp], np.array([r["rating"] for r in rpp], dtype=float)),
        "arts94": ([r["text"] for r in rows94], human94),
        "asset": ([r["harder"] for r in asset], [r["easier"] for r in asset]),
        "edit_pool": [r["sentence"] for r in rpp],
        "dev_sentences": sorted(set(el_text + abstract_s + summary_s + tldrs)),
    }


def stability_edits(sentences: list[str], dev_sentences: list[str]) -> list[tuple[str, str]]:
    """(sentence, edited) for every README++ sentence and ``N_STABILITY`` seeded dev sentences,
    one word removed and one written twice."""
    rng = np.random.default_rng(SEED)
    picked = [dev_sentences[i] for i in rng.choice(len(dev_sentences), N_STABILITY, replace=False)]
    out = []
    for s in sentences + picked:
        for op in ("remove", "duplicate"):
            edited = edit_word([s], op, rng)
            if edited is not None and len(split_sentences(edited)) == 1 and len(split_sentences(s)) == 1:
                out.append((s, edited))
    return out


def values(texts: list[str], judge: str | None) -> np.ndarray | dict[str, np.ndarray]:
    """``arts`` of every text under ``judge``, or (``judge`` None) the formulas and word count."""
    if judge is None:
        out = compute_formulas(texts, tuple(FORMULA_ROWS))
        out = {FORMULA_ROWS[k]: (-v if k == "fre" else v) for k, v in out.items()}  # FRE negated: higher = harder
        out["word count"] = np.array([len(words(t)) for t in texts], dtype=float)
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # long texts cut for the judge are the same for both judges
        return np.asarray(score_texts(texts, judge=judge, formulas=())["arts"], dtype=float)


def measure(
    v: dict[str, float],
    probes: dict,
    edits: list[tuple[str, str]],
    pool_scores: tuple[np.ndarray, np.ndarray] | None,
) -> dict:
    """Every figure of one measure from ``v`` (text -> value); with ``pool_scores`` (the judge's
    cross-fitted ARTS3000 scores, GPT-4's Elo), its agreement with GPT-4 too."""
    out = {}
    for key in ("tldr", "cochrane", "ose"):
        hard, easy, pairs = probes[key]
        out[key] = share_higher([v[hard[i]] for i in pairs[:, 0]], [v[easy[j]] for j in pairs[:, 1]])
    texts, level = probes["readmepp"]
    x = np.array([v[t] for t in texts])
    out["readmepp"] = float(spearmanr(x, level)[0])
    out["readmepp_partial"] = partial_spearman(x, level, np.log([max(len(words(t)), 1) for t in texts]))
    texts94, human = probes["arts94"]
    out["arts94"] = float(spearmanr([v[t] for t in texts94], human)[0])
    harder, easier = probes["asset"]
    out["asset"] = share_higher([v[t] for t in harder], [v[t] for t in easier])
    if pool_scores is not None:
        out["gpt4"] = float(spearmanr(pool_scores[0], pool_scores[1])[0])
    delta = np.abs([v[e] - v[s] for s, e in edits])
    out["edit_p99"], out["edit_max"] = float(np.percentile(delta, 99)), float(delta.max())
    return out


def cost(judges: dict[str, object], texts: list[str]) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Texts per second of ``score_texts`` per judge (a spec or a built judge): each judge twice,
    alternating, the best run; and each judge's ``arts`` of ``texts``."""
    for spec in judges.values():  # load models and pools outside the timing
        score_texts(texts[:5], judge=spec, formulas=())
    best = {name: 0.0 for name in judges}
    arts = {}
    for _ in range(2):
        for name, spec in judges.items():
            t0 = time.perf_counter()
            arts[name] = np.asarray(score_texts(texts, judge=spec, formulas=())["arts"], dtype=float)
            best[name] = max(best[name], len(texts) / (time.perf_counter() - t0))
    return best, arts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev-dir", default=None, help="development sets (default: $ARTS_DEV_DIR or ../shared/dev)")
    ap.add_argument("--data-dir", default=None, help="ARTS data folder (default: $ARTS_DATA_DIR or ../shared/arts)")
    args = ap.parse_args(argv)
    t0 = time.time()
    dev_dir = find_dev_dir(args.dev_dir)
    data_dir = arts_data.find_data_dir(args.data_dir)
    probes = load_probes(dev_dir, data_dir)
    edits = stability_edits(probes["edit_pool"], probes["dev_sentences"])
    texts = list(
        dict.fromkeys(
            [t for key in ("tldr", "cochrane", "ose") for t in probes[key][0] + probes[key][1]]
            + probes["readmepp"][0]
            + probes["arts94"][0]
            + [t for pair in probes["asset"] for t in pair]
            + [t for pair in edits for t in pair]
        )
    )
    print(f"{len(texts)} distinct texts, {len(edits)} one-word edits", file=sys.stderr)
    pool = load_pool("arts3000", data_dir)
    rows = {}
    timings = {}
    for name, spec in JUDGES.items():
        t1 = time.time()
        arts = values(texts, spec)
        timings[name] = time.time() - t1
        rows[f"arts, {name}"] = measure(dict(zip(texts, arts)), probes, edits, (pool.judge_scores[spec], pool.ratings))
    formulas = values(texts, None)
    for name, vals in formulas.items():
        rows[name] = measure(dict(zip(texts, vals)), probes, edits, None)
    cost_texts = [r["text"] for r in arts_data.load_pool_rows("arts3000", data_dir)][:N_COST]
    default = list(JUDGES)[-1]
    int8 = get_judge(JUDGES[default], precision="int8", progress=False)
    speed, cost_arts = cost({**JUDGES, f"{default}, int8": int8}, cost_texts)
    write(rows, probes, edits, speed, cost_arts, timings, time.time() - t0)
    return 0


def write(rows: dict, probes: dict, edits: list, speed: dict, cost_arts: dict, timings: dict, seconds: float) -> None:
    formulas = [r for r in rows if not r.startswith("arts")]
    best = {
        k: max(formulas[:3], key=lambda r: rows[r][k])
        for k in ("tldr", "cochrane", "ose", "readmepp", "readmepp_partial", "arts94", "asset")
    }
    names = list(JUDGES)
    v1, new = f"arts, {names[0]}", f"arts, {names[-1]}"
    short = names[-1].split(" (")[0]  # "learned-4"
    ratio = speed[names[-1]] / speed[names[0]]
    goals = [
        (
            "TLDR vs elementary sentence, same length: share TLDR harder",
            "tldr",
            "≥ .95 and ≥ best formula",
            lambda x: x >= max(0.95, rows[best["tldr"]]["tldr"]),
        ),
        (
            "Cochrane abstract vs summary sentence, same length, held-out reviews: share abstract's harder",
            "cochrane",
            "≥ best formula + .05",
            lambda x: x >= rows[best["cochrane"]]["cochrane"] + 0.05,
        ),
        (
            "OneStopEnglish advanced vs elementary sentence, same article and length",
            "ose",
            "no lower than learned-1",
            lambda x: x >= rows[v1]["ose"],
        ),
        ("README++ English val: Spearman with the CEFR level", "readmepp", "≥ .85", lambda x: x >= 0.85),
        (
            "README++ English val: partial Spearman, log words held fixed",
            "readmepp_partial",
            "≥ .60 and ≥ best formula + .15",
            lambda x: x >= max(0.60, rows[best["readmepp_partial"]]["readmepp_partial"] + 0.15),
        ),
        ("ARTS94 by compute's default: Spearman with the human majority", "arts94", "≥ .83", lambda x: x >= 0.83),
        ("ASSET dev pairs: share ordered as people judged", "asset", "≥ .75", lambda x: x >= 0.75),
        (
            "GPT-4 on ARTS3000, out of fold: Spearman",
            "gpt4",
            "≥ learned-1 - .05",
            lambda x: x >= rows[v1]["gpt4"] - 0.05,
        ),
        ("One word added or removed: 99th percentile \\|Δarts\\|", "edit_p99", "≤ .05", lambda x: x <= 0.05),
    ]
    lines = [
        "# Does the judge read words and ideas, or length?",
        "",
        f"Printed by `benchmarks/judge_probes.py` (see its docstring for the sets and each figure's construction). "
        f"Run time {seconds / 60:.0f} minutes on 2 CPU cores (scoring every text: "
        + ", ".join(f"{n} {timings[n]:.0f} s" for n in names)
        + "). Formulas and word count measured in the same run; FRE is negated (higher = harder) so that every "
        "share reads the same way. A tie counts one half; a pair where a formula is undefined on one of its texts is "
        "left out of that formula's share.",
        "",
        f"Pairs: {len(probes['tldr'][2])} TLDR/elementary, {len(probes['cochrane'][2])} Cochrane, "
        f"{len(probes['ose'][2])} OneStopEnglish; {len(probes['readmepp'][0])} README++ sentences; "
        f"{len(probes['arts94'][0])} ARTS94 texts; {len(probes['asset'][0])} ASSET pairs; {len(edits)} one-word edits.",
        "",
        "## Summary",
        "",
        "| figure | criterion | " + " | ".join(names) + f" | best formula | word count | {short} meets it |",
        "|---|---|" + "---|" * len(names) + "---|---|---|",
    ]
    for label, key, goal, ok in goals:
        bf = f"{rows[best[key]][key]:.3f} ({best[key]})" if key in best else ""
        wc = f"{rows['word count'][key]:.3f}" if key in rows["word count"] else ""
        lines.append(
            f"| {label} | {goal} | "
            + " | ".join(f"{rows[f'arts, {n}'][key]:.3f}" for n in names)
            + f" | {bf} | {wc} | {'yes' if ok(rows[new][key]) else '**no**'} |"
        )
    lines.append(
        f"| compute on {N_COST} ARTS3000 texts: {short} / {names[0]} texts per second | ≥ 0.8x | "
        + " | ".join(
            f"{speed[n]:.0f}/s" + (f" ({speed[n] / speed[names[0]]:.2f}x)" if k else "") for k, n in enumerate(names)
        )
        + f" |  |  | {'yes' if ratio >= 0.8 else '**no**'} |"
    )
    int8 = np.abs(cost_arts[f"{names[-1]}, int8"] - cost_arts[names[-1]])
    int8_ratio = speed[f"{names[-1]}, int8"] / speed[names[-1]]
    lines.append(
        f"| {short} int8 against {short} fp32, {N_COST} ARTS3000 texts: largest \\|Δarts\\| (mean; int8 / fp32 "
        f"texts per second) | ≤ .005 | {' | ' * (len(names) - 1)}"
        f"{int8.max():.4f} ({int8.mean():.4f}; {int8_ratio:.2f}x) |  |  | "
        f"{'yes' if int8.max() <= 0.005 else '**no**'} |"
    )
    lines += ["", "## Every measure", "", "| measure | " + " | ".join(k for _, k, _, _ in goals) + " | edit max |"]
    lines.append("|---" * (len(goals) + 2) + "|")
    for name, r in rows.items():
        lines.append(
            f"| {name} | "
            + " | ".join(f"{r[k]:.3f}" if k in r else "" for _, k, _, _ in goals)
            + f" | {r['edit_max']:.3f} |"
        )
    out = "\n".join(lines) + "\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "judge_probes.md").write_text(out, encoding="utf-8")
    print(out)


if __name__ == "__main__":
    raise SystemExit(main())
