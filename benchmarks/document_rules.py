"""How to make a document's score from its sentences, and whether to train the judge on
documents: the alternatives measured before choosing the default rule.

    .venv/bin/python benchmarks/document_rules.py [--dev-dir DIR] [--data-dir DIR]

Every text is cut into its sentences by the default splitter
(:func:`arts_metric.text.sentences.sentence_units`); each sentence gets the learned judge's
score and, against ARTS3000, its ``arts`` and ``arts_elo`` exactly as ``compute`` places
it. The rows differ in how a text's rating is made from its sentences' ratings ``R_i``
(words ``w_i``), or in the judge:

- **word-weighted mean** (the default, ``long_texts="mean"``): ``sum w_i R_i / sum w_i``;
- **plain mean**: ``mean R_i``;
- **Elo-strength mean**: ``400 log10(mean 10^(R_i/400))``, the team rating less
  ``400 log10 n`` (repetition-invariant, the hardest sentences weigh most), and its
  word-weighted form;
- **team**: release 0.2's sum of strengths, here applied to every text (no 400-character
  threshold), for reference;
- **judge trained on documents**: learned-1's score plus a linear correction over its
  own standardised inputs (MiniLM embedding and features), fitted with a logistic loss
  on Cochrane pairs (the word-weighted mean of the summary's sentences below the
  abstract's) and, in the second such row, also a squared loss pulling each SciTLDR
  TLDR to its abstract's mean, while a squared loss keeps the GPT-4 Elo of the
  ARTS300/ARTS3000 texts (on their out-of-fold learned-1 scores); ridge penalty. Five
  folds over Cochrane and SciTLDR documents and over the pool texts: every Cochrane and
  SciTLDR figure of these rows is out of fold, and "GPT-4 CV" is the Spearman of the
  held-out pool texts' scores with GPT-4's Elo (learned-1's own out-of-fold scores: the
  first rows). The temperature of the judge is kept. Word-weighted mean rule.

Sets (read at run time, never stored): Cochrane abstracts and their plain-language
summaries (Devaraj et al. 2021, validation split, CC BY 4.0), OneStopEnglish articles at
three levels (Vajjala & Lucic 2018, CC BY-SA 4.0; validation only: nothing is fitted
on it), SciTLDR abstracts and TLDRs (Cachola et al. 2020, development split,
Apache-2.0); ARTS94 and the GPT-4 Elo of ARTS300/ARTS3000 from the ARTS data.

Columns (the goals are those of ``benchmarks/documents.py``, which measures the default
through ``compute`` with the formulas beside it): share of pairs ordered right, as
written and cut to their first whole sentences up to 120 words, for Cochrane and
OneStopEnglish (all three pairs per article); the gap between the median ``arts`` of
advanced and elementary OneStopEnglish texts; TLDRs against their abstracts (median
``arts`` gap, share of TLDRs rated easier); an elementary OneStopEnglish article against
each 25+-word Cochrane abstract sentence and against each TLDR (share of pairs where the
short hard text is rated harder); the spread of ``arts`` over the dev paragraphs (95th
minus 5th percentile); the mean P(output easier) when the output is the first half of
its source; ARTS94's Spearman with the human majority; GPT-4 CV.

Writes ``benchmarks/results/document_rules.md``. About 15 minutes on 2 CPU cores, most of
it MiniLM reading the 27,000 distinct sentences and pool texts once.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import csr_matrix
from scipy.special import expit, log_expit, logsumexp
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.data import find_dev_dir  # noqa: E402
from arts_metric.judges.learned import LearnedJudge  # noqa: E402
from arts_metric.pool import load_pool  # noqa: E402
from arts_metric.ratings.elo import (  # noqa: E402
    expected_score,
    mean_expected_score,
    rating_of_expected_score,
    ratings_from_history,
)
from arts_metric.text.features import words  # noqa: E402
from arts_metric.text.sentences import sentence_units, split_sentences  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
LEVELS = ("elementary", "intermediate", "advanced")
PAIRS = ((0, 1), (1, 2), (0, 2))
LN10_400 = np.log(10) / 400
FOLDS = 5


def first_words(text: str, limit: int = 120) -> str:
    """The first whole sentences of ``text`` up to ``limit`` words (at least one)."""
    out, count = [], 0
    for s in split_sentences(text):
        n = len(words(s))
        if out and count + n > limit:
            break
        out.append(s)
        count += n
    return " ".join(out) if out else text


def first_half(text: str) -> str:
    """The first half of ``text``'s sentences (at least one); of its words for one sentence."""
    sentences = split_sentences(text)
    if len(sentences) < 2:
        tokens = text.split()
        return " ".join(tokens[: max(1, len(tokens) // 2)])
    return " ".join(sentences[: len(sentences) // 2])


def load_sets(dev_dir: Path) -> dict:
    def rows(name: str) -> list[dict]:
        return [json.loads(line) for line in (dev_dir / name).read_text(encoding="utf-8").splitlines()]

    cochrane, scitldr = rows("cochrane_pls_val.jsonl"), rows("scitldr_dev.jsonl")
    articles: dict[str, dict[str, str]] = {}
    for r in rows("onestopenglish_dev.jsonl"):
        articles.setdefault(r["article"], {})[r["level"]] = r["text"]
    return {
        "pls": [r["plain_language_summary"] for r in cochrane],
        "abstract": [r["abstract"] for r in cochrane],
        "ose": [[articles[a][lv] for lv in LEVELS] for a in sorted(articles)],
        "tldr": [r["tldr"] for r in scitldr],
        "sci_abstract": [r["abstract"] for r in scitldr],
    }


class Texts:
    """Every distinct judge unit, its inputs and learned-1 score; documents as index lists."""

    def __init__(self, judge: LearnedJudge) -> None:
        self.judge, self.index, self.units = judge, {}, []

    def doc(self, text: str) -> np.ndarray:
        return np.array([self._add(u) for u in sentence_units(text)])

    def _add(self, unit: str) -> int:
        if unit not in self.index:
            self.index[unit] = len(self.units)
            self.units.append(unit)
        return self.index[unit]

    def unit(self, text: str) -> int:
        return self._add(text)

    def compute(self) -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # units cut for the judge
            self.x = self.judge.features(self.units)
        model = self.judge.model
        self.s1 = model.predict(self.x)
        z = (self.x - model.x_mean) / model.x_scale
        self.z = np.nan_to_num(z, nan=0.0, posinf=0.0, neginf=0.0)
        self.w = np.array([max(len(words(u)), 1) for u in self.units], dtype=float)


def mean_op(docs: list[np.ndarray], n: int, weights: np.ndarray) -> csr_matrix:
    """Rows: each document's word-weighted mean over the units."""
    r, c, v = [], [], []
    for k, g in enumerate(docs):
        w = weights[g] / weights[g].sum()
        r += [k] * len(g)
        c += list(g)
        v += list(w)
    return csr_matrix((v, (r, c)), shape=(len(docs), n))


def fit_correction(t: Texts, pool_idx, pool_elo, pool_oof, co_pairs, sci_pairs, lam=10.0, wco=3.0, wsc=0.0):
    """The linear correction ``z @ w + b`` of learned-1's score (see the docstring)."""
    n, d = len(t.units), t.z.shape[1]
    dco = mean_op([a for a, _ in co_pairs], n, t.w) - mean_op([p for _, p in co_pairs], n, t.w)
    dsc = mean_op([a for a, _ in sci_pairs], n, t.w) - mean_op([b for _, b in sci_pairs], n, t.w)
    zco, bco, zsc, bsc = dco @ t.z, dco @ t.s1, dsc @ t.z, dsc @ t.s1
    zp, rp = t.z[pool_idx], pool_elo - pool_oof
    sp = np.std(rp)
    tau, sig = 5.0, 10.0  # Elo points: the margin of the Cochrane pairs, the scale of a TLDR's gap

    def loss(wb: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = wb[:d], wb[d]
        ep = (zp @ w + b - rp) / sp
        m = (bco + zco @ w) / tau
        e = (bsc + zsc @ w) / sig
        value = np.mean(ep**2) - wco * np.mean(log_expit(m)) + lam * w @ w / d
        grad = np.zeros(d + 1)
        grad[:d] = 2 * zp.T @ ep / sp / len(ep) - wco * zco.T @ (1 - expit(m)) / tau / len(m) + 2 * lam * w / d
        grad[d] = 2 * ep.sum() / sp / len(ep)
        if wsc and len(e):
            value += wsc * np.mean(e**2)
            grad[:d] += wsc * 2 * zsc.T @ e / sig / len(e)
        return value, grad

    res = minimize(loss, np.zeros(d + 1), jac=True, method="L-BFGS-B", options={"maxiter": 2000})
    return res.x[:d], res.x[d]


def rule_rating(kind: str, r: np.ndarray, w: np.ndarray) -> float:
    if len(r) == 1:
        return float(r[0])
    if kind == "word-weighted mean":
        return float(np.dot(r, w) / w.sum())
    if kind == "plain mean":
        return float(r.mean())
    if kind == "Elo-strength mean":
        return float((logsumexp(r * LN10_400) - np.log(len(r))) / LN10_400)
    if kind == "word-weighted Elo-strength mean":
        return float(logsumexp(r * LN10_400, b=w / w.sum()) / LN10_400)
    if kind == "team (sum of strengths)":
        return float(logsumexp(r * LN10_400) / LN10_400)
    raise ValueError(kind)


def probes(kind, s, pool_scores, temperature, pool_ratings, t: Texts, docs: dict, only: dict | None = None) -> dict:
    """Every column for one rule and one vector of unit scores ``s``."""
    unit_arts = expit((s[:, None] - pool_scores[None, :]) / temperature).mean(axis=1)
    unit_elo = rating_of_expected_score(pool_ratings, unit_arts)

    def elo(g: np.ndarray) -> float:
        return rule_rating(kind, unit_elo[g], t.w[g])

    def arts(groups: list[np.ndarray]) -> np.ndarray:
        return mean_expected_score(pool_ratings, np.array([elo(g) for g in groups]))

    def right(easier: np.ndarray, harder: np.ndarray) -> float:
        return float(np.mean((harder > easier) + 0.5 * (harder == easier)))

    keep = only or {}
    co = keep.get("co", np.arange(len(docs["pls"])))
    sc = keep.get("sc", np.arange(len(docs["tldr"])))
    out = {}
    out["Cochrane"] = right(arts([docs["pls"][i] for i in co]), arts([docs["abstract"][i] for i in co]))
    out["Cochrane 120"] = right(arts([docs["pls120"][i] for i in co]), arts([docs["abstract120"][i] for i in co]))
    ose = np.array([arts(tr) for tr in docs["ose"]])
    ose120 = np.array([arts(tr) for tr in docs["ose120"]])
    out["OSE"] = right(np.concatenate([ose[:, i] for i, _ in PAIRS]), np.concatenate([ose[:, j] for _, j in PAIRS]))
    out["OSE 120"] = right(
        np.concatenate([ose120[:, i] for i, _ in PAIRS]), np.concatenate([ose120[:, j] for _, j in PAIRS])
    )
    out["OSE gap"] = float(np.median(ose[:, 2]) - np.median(ose[:, 0]))
    tldr, sci = arts([docs["tldr"][i] for i in sc]), arts([docs["sci_abstract"][i] for i in sc])
    out["TLDR gap"] = float(np.median(sci) - np.median(tldr))
    out["TLDR easier"] = right(tldr, sci)
    hard = mean_expected_score(pool_ratings, unit_elo[docs["hard"]])
    out["x Cochrane"] = float(np.mean(hard[None, :] > ose[:, 0][:, None]))
    tldr_all = arts(docs["tldr"])
    out["x TLDR"] = float(np.mean(tldr_all[None, :] > ose[:, 0][:, None]))
    every = np.concatenate([arts(docs["abstract"]), arts(docs["pls"]), ose.ravel(), arts(docs["sci_abstract"])])
    p5, p95 = np.percentile(every, [5, 95])
    out["span"] = float(p95 - p5)
    halves = [float(expected_score(elo(whole), elo(half))) for whole, half in zip(docs["half_src"], docs["half_out"])]
    out["half p"] = float(np.mean(halves))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev-dir", default=None)
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--out", type=Path, default=RESULTS / "document_rules.md")
    args = ap.parse_args(argv)
    t0 = time.time()
    sets = load_sets(find_dev_dir(args.dev_dir))
    data_dir = arts_data.find_data_dir(args.data_dir)
    judge = LearnedJudge("v1", progress=False)
    t = Texts(judge)
    docs = {
        "pls": [t.doc(x) for x in sets["pls"]],
        "abstract": [t.doc(x) for x in sets["abstract"]],
        "pls120": [t.doc(first_words(x)) for x in sets["pls"]],
        "abstract120": [t.doc(first_words(x)) for x in sets["abstract"]],
        "ose": [[t.doc(x) for x in tr] for tr in sets["ose"]],
        "ose120": [[t.doc(first_words(x)) for x in tr] for tr in sets["ose"]],
        "tldr": [t.doc(x) for x in sets["tldr"]],
        "sci_abstract": [t.doc(x) for x in sets["sci_abstract"]],
    }
    sources = sets["abstract"] + [x for tr in sets["ose"] for x in tr]
    docs["half_src"] = [t.doc(x) for x in sources]
    docs["half_out"] = [t.doc(first_half(x)) for x in sources]
    hard = [s for x in sets["abstract"] for s in sentence_units(x) if len(words(s)) >= 25]
    docs["hard"] = np.array([t.unit(s) for s in hard])
    pools = {name: load_pool(name, data_dir=data_dir) for name in ("arts300", "arts3000")}
    pool_rows = {name: arts_data.load_pool_rows(name, data_dir) for name in ("arts94", "arts300", "arts3000")}
    pool_idx, pool_elo, pool_oof = [], [], []
    for name, pool in pools.items():
        by_id = {r["id"]: r["text"] for r in pool_rows[name]}
        pool_idx += [t.unit(by_id[i]) for i in pool.ids]
        pool_elo.append(pool.ratings)
        pool_oof.append(pool.judge_scores["learned:v1"])
    pool_idx, pool_elo, pool_oof = np.array(pool_idx), np.concatenate(pool_elo), np.concatenate(pool_oof)
    texts94 = [r["text"] for r in pool_rows["arts94"]]
    docs94 = [t.doc(x) for x in texts94]
    whole94 = np.array([t.unit(x) for x in texts94])
    human = ratings_from_history(94, arts_data.load_history("arts94", "human", "majority", data_dir))
    print(f"{len(t.units)} distinct units", file=sys.stderr)
    t.compute()
    print(f"inputs and scores: {time.time() - t0:.0f} s", file=sys.stderr)
    arts3000 = pools["arts3000"]
    n300 = len(pools["arts300"].ids)
    temperature = judge.temperature

    rows: list[tuple[str, dict]] = []
    gpt4_cv = spearmanr(pool_oof, pool_elo)[0]
    for kind in (
        "word-weighted mean",
        "plain mean",
        "Elo-strength mean",
        "word-weighted Elo-strength mean",
        "team (sum of strengths)",
    ):
        out = probes(kind, t.s1, arts3000.judge_scores["learned:v1"], temperature, arts3000.ratings, t, docs)
        unit_arts = expit((t.s1[:, None] - arts3000.judge_scores["learned:v1"][None, :]) / temperature).mean(1)
        unit_elo = rating_of_expected_score(arts3000.ratings, unit_arts)
        a94 = [rule_rating(kind, unit_elo[g], t.w[g]) for g in docs94]
        out["ARTS94"] = float(spearmanr(a94, human)[0])
        out["GPT-4 CV"] = float(gpt4_cv)
        rows.append((f"learned-1, {kind}", out))
        print(rows[-1], file=sys.stderr)

    # Judges trained on documents, five folds.
    rng = np.random.default_rng(0)
    pf = rng.integers(0, FOLDS, len(pool_idx))
    cf = rng.integers(0, FOLDS, len(docs["pls"]))
    sf = rng.integers(0, FOLDS, len(docs["tldr"]))
    for label, wsc in (("Cochrane pairs", 0.0), ("Cochrane pairs + TLDR = abstract", 1.0)):
        fold_scores = np.zeros((FOLDS, len(t.units)))
        pool_pred = np.zeros(len(pool_idx))
        for f in range(FOLDS):
            keep = pf != f
            co_pairs = [(docs["abstract"][i], docs["pls"][i]) for i in np.flatnonzero(cf != f)]
            sci_pairs = [(docs["tldr"][i], docs["sci_abstract"][i]) for i in np.flatnonzero(sf != f)]
            w, b = fit_correction(
                t, pool_idx[keep], pool_elo[keep], pool_oof[keep], co_pairs, sci_pairs if wsc else [], wsc=wsc
            )
            fold_scores[f] = t.s1 + t.z @ w + b
            pool_pred[~keep] = pool_oof[~keep] + t.z[pool_idx[~keep]] @ w + b
        pool_scores = pool_pred[n300:]  # ARTS3000, each text scored by the fold that held it out
        results = []
        for f in range(FOLDS):
            only = {"co": np.flatnonzero(cf == f), "sc": np.flatnonzero(sf == f)}
            results.append(
                (
                    only,
                    probes(
                        "word-weighted mean",
                        fold_scores[f],
                        pool_scores,
                        temperature,
                        arts3000.ratings,
                        t,
                        docs,
                        only=only,
                    ),
                )
            )
        mean_model = fold_scores.mean(axis=0)
        out = probes("word-weighted mean", mean_model, pool_scores, temperature, arts3000.ratings, t, docs)
        # Out-of-fold figures for the sets it was fitted on: each fold's documents by its own model.
        for key in ("Cochrane", "Cochrane 120", "TLDR gap", "TLDR easier"):
            weights = [len(o["co"] if key.startswith("Cochrane") else o["sc"]) for o, _ in results]
            out[key] = float(np.average([r[key] for _, r in results], weights=weights))
        unit_arts = expit((mean_model[:, None] - pool_scores[None, :]) / temperature).mean(1)
        unit_elo = rating_of_expected_score(arts3000.ratings, unit_arts)
        out["ARTS94"] = float(
            spearmanr([rule_rating("word-weighted mean", unit_elo[g], t.w[g]) for g in docs94], human)[0]
        )
        out["GPT-4 CV"] = float(spearmanr(pool_pred, pool_elo)[0])
        rows.append((f"learned-1 + correction fitted on {label}", out))
        print(rows[-1], file=sys.stderr)
    whole_sp = spearmanr(t.s1[whole94], human)[0]

    cols = list(rows[0][1])
    goals = {
        "Cochrane": "≥ .93",
        "Cochrane 120": "≥ best formula",
        "OSE": "≥ best formula",
        "OSE 120": "≥ best formula",
        "OSE gap": "≥ .15",
        "TLDR gap": "≤ .10",
        "TLDR easier": ".30-.70",
        "x Cochrane": "≥ .95",
        "x TLDR": "≥ .95",
        "span": "≥ .5",
        "half p": "≤ .60",
        "ARTS94": "≥ .83",
        "GPT-4 CV": "",
    }
    lines = [
        "# Document rules and judges trained on documents",
        "",
        "Printed by `benchmarks/document_rules.py` (see its docstring for the rules, the sets and the columns). "
        "Every text is cut into its sentences; learned-1 scores each sentence. In the last two rows the Cochrane "
        "and TLDR columns are out of fold (five folds over documents) and GPT-4 CV is the Spearman of held-out "
        f"pool texts with GPT-4's Elo. For reference, learned-1 reading each ARTS94 text whole: {whole_sp:.4f}.",
        "",
        "| rule or judge | " + " | ".join(cols) + " |",
        "|---|" + "---|" * len(cols),
        "| goal | " + " | ".join(goals.get(c, "") for c in cols) + " |",
    ]
    for name, out in rows:
        lines.append(f"| {name} | " + " | ".join(f"{out[c]:.3f}" for c in cols) + " |")
    lines += ["", f"Run time: {time.time() - t0:.0f} s on this machine.", ""]
    text = "\n".join(lines)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
