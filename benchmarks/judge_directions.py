"""Directions for a judge that reads words and ideas beyond length, measured on the probes of
``benchmarks/judge_probes.py``: what moves the figures learned-3 (the default judge) does not
reach, and how far. Three parts, each on its own:

1. **The judge's inputs and fit** (``--parts fit``). Fold 0 of the training script's grouped
   5-fold CV (near-duplicates held out together) is held out of the GPT-4 pool texts; the rest
   and the README++ English train sentences are fitted as learned-3 is (kernel ridge on
   standardised [mean-pooled MiniLM layer 4, the 15 cheap features], learned-3's selected
   ``alin`` and ``gamma`` read from its ``model.json``; README++ target ``1200 + 30 x (CEFR
   level - mean)``). Rows:

   - frozen MiniLM (learned-3's fit, fold 0 out), with each README++ sentence weighing 2
     (learned-3), 4 or 8;
   - README++ train alone, and the average of the two (standardised scores, README++ alone
     weighing .25 or .5);
   - the word pieces read apart instead of only through their mean: a linear score of each
     piece's state (a ridge regression of the targets on the mean-pooled states, whose mean
     over a text's pieces is the text's fit), summarised per text by its three highest
     pieces' mean and their 90th percentile, joined to the kernel's inputs (cross-fitted on
     the training rows, so that no row's target reaches its own inputs); and an attention
     head over the frozen pieces (each piece a value and an attention logit, plus a linear
     term of the cheap features; 20 epochs), alone and averaged with learned-3's fit;
   - half the Cochrane reviews (the even-numbered ones of ``cochrane_pls_val.jsonl``) joined
     to the training rows, weighing 1 each: every abstract sentence's target is learned-3's
     fit of it (fold 0 out, without Cochrane) plus 20 or 40 Elo points, every
     plain-language-summary sentence's that fit minus as much;
   - MiniLM's layers 1-4 fine-tuned on the same rows and targets (a linear head on the
     mean-pooled layer 4, weighted squared error, AdamW, linear warm-up and decay, batches
     of 32 texts of similar length, seed 0), then the same kernel ridge on the fine-tuned
     states: 2 epochs at learning rate 3e-5 and 4 epochs at 1e-4.

   Figures, out of sample: Spearman with GPT-4's Elo on the held-out fold; the same-length
   shares (TLDR / elementary, Cochrane abstract / summary, OneStopEnglish advanced /
   elementary); README++ English val Spearman and partial Spearman (log words held fixed);
   ARTS94 and the ASSET pairs with each text the mean of its sentences' scores weighted by
   words. These rows have no shipped pool scores to place texts against, so a text's value
   is the weighted mean of its sentences' latent scores, not of their placed ratings as in
   ``compute``: ARTS94 and ASSET differ from ``judge_probes.py``'s in the second digit. Two
   more columns read the odd-numbered Cochrane reviews only, which no row trains on (their
   sentences also found in an even-numbered review left out): abstract against summary
   sentences of the same length, and each abstract against its summary as written; the
   formulas' figures on that half are printed below the table. The last column is the
   99th percentile of how far the one-word edits of ``--parts edits`` move a sentence's
   position among the row's own values of the GPT-4 pool texts (``arts`` is a position in
   the pool; goal .05), so that rows on different scales compare. Every
   other figure is a share or a rank correlation of single sentences, the same on the latent
   scale as on ``arts``. ARTS94 and ASSET are read for information; nothing
   is chosen on them.
2. **How a text of several sentences is read** (``--parts reading``), with the shipped
   learned-3: the mean of its sentences' scores weighted by words (the default); that mean
   with every two adjacent sentences also read together, weighing their words times
   ``max(0, 1 - words / N)`` for N = 40 or 60 (short sentences are read together, long ones
   alone, and no length makes a score jump); the same mean over windows of 2 or 3
   consecutive sentences (a text with fewer sentences read whole); the whole text (MiniLM reads at most 256 word pieces, so a long text is cut).
   The first rule is ``compute``'s default, its ``arts_elo``. Under the others each piece is
   placed in the pool alone (``long_texts="whole"``), its ``arts`` read back on the pool's
   scale (:func:`arts_metric.ratings.elo.rating_of_pool_position`), and the text's rating is
   the weighted mean of its pieces', as ``compute`` makes it from sentences.
   Figures: a short hard text (a Cochrane abstract sentence of 25+ words or a SciTLDR TLDR)
   rated harder than an elementary OneStopEnglish article (goal .95); a TLDR rated easier
   than its own abstract (goal .30-.70); Cochrane abstract harder than its plain-language
   summary, as written (goal .93); OneStopEnglish advanced article harder than its
   elementary version; ARTS94 Spearman (goal .83); ASSET pairs (goal .75).
3. **One-word edits** (``--parts edits``), with the shipped learned-3: the edits of
   ``judge_probes.py`` (one word removed or written twice), the 99th percentile of
   ``|Δarts|`` (goal .05) by kind of edit (a word written twice; a word removed that is on
   the Dale-Chall list of familiar words, or one that is not) and by sentence length; and
   the latent change split into the part that MiniLM's states carry and the part the
   cheap features carry (the edited text's representation with the original's features,
   and the other way round).

Sets: those of ``judge_probes.py`` (SciTLDR, Cochrane, OneStopEnglish, README++ English,
ARTS94, ASSET pairwise dev; see its docstring for sources and licences), read at run time;
no text is stored in the repository or printed.

Writes ``benchmarks/results/judge_directions.md``. About 18 minutes on 2 CPU cores (the
fine-tuning and the whole-text readings take most of it)::

    .venv/bin/python benchmarks/judge_directions.py [--parts fit,reading,edits] [--dev-dir DIR] [--data-dir DIR]

The fine-tuned rows run MiniLM through transformers' modules in padded batches on torch's
CPU threads, so their last digits can differ between machines; every other row is the
library's own scoring.
"""

from __future__ import annotations

import argparse
import collections
import copy
import sys
import time
import warnings
from pathlib import Path
from typing import Callable, Sequence

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "scripts"))

import judge_probes as probes_mod  # noqa: E402
import train_learned_judge as training  # noqa: E402
from documents import _table, harder_share, load_scitldr  # noqa: E402

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.data import find_dev_dir  # noqa: E402
from arts_metric.judges.learned import LearnedJudge  # noqa: E402
from arts_metric.judges.learned.encoder import MAX_WORD_PIECES, load_encoder, transformer  # noqa: E402
from arts_metric.judges.learned.model import default_weights_dir, load_model  # noqa: E402
from arts_metric.languages.readmepp import readmepp_rows  # noqa: E402
from arts_metric.pool import load_pool  # noqa: E402
from arts_metric.ratings.elo import rating_of_pool_position  # noqa: E402
from arts_metric.ratings.stats import partial_spearman  # noqa: E402
from arts_metric.scoring.api import score_texts  # noqa: E402
from arts_metric.text.features import text_features, words  # noqa: E402
from arts_metric.text.sentences import split_sentences  # noqa: E402

SEED = 0
RESULTS = REPO / "benchmarks" / "results"
PARTS = ("fit", "reading", "edits")
LAYER = 4  # learned-3's layer
#: (epochs, learning rate of MiniLM's layers) of the fine-tuned rows; the head learns at 1e-3.
FINE_TUNES = ((2.0, 3e-5), (4.0, 1e-4))
README_WEIGHTS = (2.0, 4.0, 8.0)
ENSEMBLE_SHARES = (0.25, 0.5)
#: The piece scorer's ridge penalty; the two piece summaries' weight in the kernel's inputs (each
#: standardised column times this; 3 and 6 were also tried and gave the same figures within .005).
PIECE_RIDGE_ALPHA = 1000.0
PIECE_COLUMN_WEIGHT = 10.0
#: (epochs, learning rate, batch size) of the attention head over frozen word-piece states.
ATTENTION_FIT = (20, 2e-3, 64)
#: Elo points by which a trained-on Cochrane abstract sentence's target is set above the fit
#: without Cochrane, and a plain-language-summary sentence's below it.
COCHRANE_NUDGES = (20.0, 40.0)
#: Each rule's name in the report: (how the text is cut, its size: words for "pairs", sentences
#: for "windows"); see :func:`reading_units`.
READING_RULES = {
    "mean": ("mean", 0),
    "pairs while short, 40 words": ("pairs", 40),
    "pairs while short, 60 words": ("pairs", 60),
    "windows of 2": ("windows", 2),
    "windows of 3": ("windows", 3),
    "whole": ("whole", 0),
}
LENGTH_BANDS = ((1, 10), (10, 20), (20, 40), (40, 10_000))


# ----------------------------------------------------------------------------- reading rules
def reading_units(text: str, cut: str, size: int = 0) -> list[tuple[str, float]]:
    """The pieces of ``text`` the judge reads, each with its weight in the text's score:
    ``"mean"``, its sentences; ``"windows"``, every run of ``size`` consecutive sentences (the
    whole text when it has at most ``size``); ``"whole"``, the text itself; each weighing its
    words. Under ``"pairs"`` the sentences weigh their words and every two adjacent sentences
    of w words in all are read together too, weighing ``w * max(0, 1 - w / size)``: a pair
    fades out as it grows, so no length makes the score jump."""
    sentences = split_sentences(text) or [text]

    def weighed(units: list[str]) -> list[tuple[str, float]]:
        return [(u, float(max(len(words(u)), 1))) for u in units]

    if cut not in ("mean", "pairs", "windows", "whole"):
        raise ValueError(f"unknown cut {cut!r}")
    if cut == "mean" or len(sentences) == 1:
        return weighed(sentences)
    if cut == "whole":
        return weighed([text])
    if cut == "windows":
        if len(sentences) <= size:
            return weighed([" ".join(sentences)])
        return weighed([" ".join(sentences[i : i + size]) for i in range(len(sentences) - size + 1)])
    singles = weighed(sentences)
    out = list(singles)
    for (a, wa), (b, wb) in zip(singles, singles[1:]):
        fade = max(0.0, 1.0 - (wa + wb) / size)
        if fade > 0:
            out.append((f"{a} {b}", (wa + wb) * fade))
    return out


def weighted_mean(units: Sequence[tuple[str, float]], score: Callable[[str], float]) -> float:
    """Mean of the units' scores, each ``(unit, weight)``."""
    w = np.array([weight for _, weight in units], dtype=float)
    return float(np.dot(w, [score(u) for u, _ in units]) / w.sum())


def edit_moves(pool: np.ndarray, pairs: Sequence[tuple[float, float]]) -> float:
    """99th percentile of how far one-word edits move a sentence's position among ``pool`` (a
    row's values of the GPT-4 pool texts): ``arts`` is a text's position in the pool, so this
    is the change in ``arts`` the row would give, on any row's own scale."""
    ranked = np.sort(pool)

    def position(x: np.ndarray) -> np.ndarray:
        return np.searchsorted(ranked, x) / ranked.size

    before, after = np.array(pairs, dtype=float).T
    return float(np.percentile(np.abs(position(after) - position(before)), 99))


# ----------------------------------------------------------------------------- one-word edits
def edit_kind(original: str, edited: str, familiar: set[str]) -> str:
    """``"written twice"``, ``"familiar word removed"`` (every removed word on the Dale-Chall
    list of familiar words) or ``"other word removed"``."""
    before, after = words(original), words(edited)
    if len(after) > len(before):
        return "written twice"
    gone = collections.Counter(w.lower() for w in before)
    gone.subtract(w.lower() for w in after)
    removed = [w for w, k in gone.items() if k > 0]
    return "familiar word removed" if all(w in familiar for w in removed) else "other word removed"


def familiar_words() -> set[str]:
    """The Dale-Chall list of familiar words, as textstat (which computes Dale-Chall here) has it."""
    from textstat.backend.utils import get_lang_easy_words

    return {w.lower() for w in get_lang_easy_words("en_US")}


# ----------------------------------------------------------------------------- part 1: fit
class FitData:
    """Fold 0 held out of the GPT-4 pool texts; README++ train joined as learned-3 joins it."""

    def __init__(self, data_dir: Path, dev_dir: Path) -> None:
        from sklearn.model_selection import GroupKFold

        td = training.load_training_data(data_dir)
        self.texts, self.elo = td.texts, td.elo
        groups, _ = training.near_duplicate_groups(td.texts)
        folds = GroupKFold(training.FOLDS, shuffle=True, random_state=training.SEED)
        self.train_idx, self.test_idx = next(iter(folds.split(np.zeros(len(td.texts)), groups=groups)))
        rtrain = readmepp_rows("en", "train", dev_dir)
        level = np.array([r["rating"] for r in rtrain], dtype=float)
        self.readme_texts = [r["sentence"] for r in rtrain]
        self.readme_target = training.START_RATING + training.README_SLOPE * (level - level.mean())
        self.train_texts = [td.texts[i] for i in self.train_idx] + self.readme_texts
        self.train_y = np.r_[td.elo[self.train_idx], self.readme_target]
        self.n_pool = len(self.train_idx)

    def weights(self, readme_weight: float) -> np.ndarray:
        return np.r_[np.ones(self.n_pool), np.full(len(self.readme_texts), readme_weight)]


def pooled_states(model, ids: list[list[int]], grad: bool = False, pieces: list | None = None):
    """Mean-pooled hidden states of layer :data:`LAYER` over each text's word pieces (a padded
    batch). With ``pieces`` (a list), each text's states of its word pieces, without the
    tokenizer's opening and closing marks, are appended to it as a float32 array."""
    import torch

    batch = load_encoder("cpu").tokenizer.pad({"input_ids": ids}, return_tensors="pt")
    mask = batch["attention_mask"].float()
    with torch.set_grad_enabled(grad):
        out = model(input_ids=batch["input_ids"], attention_mask=mask, output_hidden_states=True)
        states = out.hidden_states[LAYER]
        if pieces is not None:
            pieces.extend(states[k, 1 : len(r) - 1].numpy().astype(np.float32) for k, r in enumerate(ids))
        return (states * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)


def fine_tune(texts: Sequence[str], target: np.ndarray, weight: np.ndarray, tokenize, epochs: float, lr: float):
    """MiniLM's first :data:`LAYER` layers fine-tuned (embeddings frozen) with a linear head on
    ``texts``' ``target`` (Elo points), each row's squared error weighing ``weight``."""
    import torch

    torch.manual_seed(SEED)
    model = copy.deepcopy(transformer(LAYER, "cpu"))
    model.train()
    model.embeddings.requires_grad_(False)
    head = torch.nn.Linear(model.config.hidden_size, 1)
    ids = tokenize(texts)
    y = torch.tensor((target - training.START_RATING) / 36.0, dtype=torch.float32)  # a pool SD is ~36 Elo
    w = torch.tensor(weight, dtype=torch.float32)
    by_length = np.argsort([len(r) for r in ids], kind="stable")
    batches = [by_length[i : i + 32] for i in range(0, len(by_length), 32)]
    steps = int(len(batches) * epochs)
    opt = torch.optim.AdamW(
        [
            {"params": [p for p in model.parameters() if p.requires_grad], "lr": lr},
            {"params": head.parameters(), "lr": 1e-3},
        ],
        weight_decay=0.01,
    )
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps)
    )
    rng = np.random.default_rng(SEED)
    from tqdm.auto import tqdm

    bar = tqdm(total=steps, desc=f"fine-tune {epochs:g} epochs, lr {lr:g}", file=sys.stderr)
    step = 0
    while step < steps:
        for b in rng.permutation(len(batches)):
            if step >= steps:
                break
            rows = batches[b]
            pred = head(pooled_states(model, [ids[i] for i in rows], grad=True)).squeeze(-1)
            loss = (w[rows] * (pred - y[rows]) ** 2).sum() / w[rows].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            bar.update()
    bar.close()
    model.eval()
    return model


def encode(model, ids: list[list[int]], pieces: list | None = None) -> np.ndarray:
    """Mean-pooled layer :data:`LAYER` of each text; with ``pieces`` (an empty list), also
    each text's word-piece states, in the texts' order."""
    order = np.argsort([len(r) for r in ids], kind="stable")
    out = np.zeros((len(ids), model.config.hidden_size))
    by_row: list = []
    for i in range(0, len(order), 64):
        rows = order[i : i + 64]
        out[rows] = pooled_states(model, [ids[j] for j in rows], pieces=None if pieces is None else by_row).numpy()
    if pieces is not None:
        back = np.empty(len(order), dtype=int)
        back[order] = np.arange(len(order))
        pieces.extend(by_row[k] for k in back)
    return out


# ------------------------------------------------------------- word pieces instead of their mean
def piece_scorer(x: np.ndarray, y: np.ndarray, weight: np.ndarray) -> tuple[np.ndarray, float]:
    """A linear score of one word piece's state, ``state @ w + b``: a ridge regression
    (alpha :data:`PIECE_RIDGE_ALPHA`, standardised columns, dead ones dropped) of the targets
    on the texts' mean-pooled states, whose mean over a text's pieces is the text's fit."""
    from sklearn.linear_model import Ridge

    std = training.Standardiser(x)  # a dead column standardises to 0 and gets weight 0
    fit = Ridge(alpha=PIECE_RIDGE_ALPHA).fit(std(x), y, sample_weight=weight)
    w = fit.coef_ / std.scale
    return w, float(fit.intercept_ - std.mean @ w)


def piece_summaries(pieces: Sequence[np.ndarray], w: np.ndarray, b: float) -> np.ndarray:
    """``(n, 2)``: the mean of a text's three highest piece scores and their 90th percentile
    (a text without a piece: ``b`` for both), where one piece's score is ``state @ w + b``."""
    out = np.full((len(pieces), 2), b, dtype=float)
    for i, p in enumerate(pieces):
        if len(p):
            s = p.astype(np.float64) @ w + b
            out[i] = np.sort(s)[::-1][:3].mean(), np.quantile(s, 0.9)
    return out


def attention_head(n_inputs: int, n_features: int, hidden: int = 64):
    """Each word piece's state gives a value (a one-hidden-layer network) and an attention
    logit (linear); a text is the softmax-weighted sum of its pieces' values plus a linear
    term of its cheap features."""
    import torch

    class Head(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.value = torch.nn.Sequential(
                torch.nn.Dropout(0.1), torch.nn.Linear(n_inputs, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, 1)
            )
            self.logit = torch.nn.Linear(n_inputs, 1)
            self.features = torch.nn.Linear(n_features, 1)

        def forward(self, states, mask, features):
            logits = self.logit(states).squeeze(-1).masked_fill(mask == 0, -1e9)
            value = (torch.softmax(logits, -1) * self.value(states).squeeze(-1)).sum(1)
            return value + self.features(features).squeeze(-1)

    return Head()


def halves_sentences(halves: dict[str, list]) -> list[str]:
    """Every sentence of :func:`arts_metric.data.split_cochrane_reviews`'s split (its lists of
    sentences, not its lists of reviews), in the split's order."""
    return [x for key, rows in halves.items() if not key.endswith("_reviews") for x in rows]


def _joined(
    rows: list[int], y: np.ndarray, weight: np.ndarray, copies: tuple | None, sources: int
) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``rows``, ``y`` and ``weight`` joined by the ``copies`` (see :meth:`FitBench.with_cochrane`)
    whose source is one of the first ``sources`` rows, each with its source's target and weight."""
    if copies is None:
        return rows, y, weight
    crows, src, w = copies
    take = src < sources
    return [*rows, *crows[take]], np.r_[y, y[src[take]]], np.r_[weight, w * weight[src[take]]]


class FitBench:
    """Every text the fit rows read, tokenized and encoded once by frozen MiniLM, and the
    figures of one row's predictions (:meth:`measure`).

    Attributes: ``fd`` (:class:`FitData`), ``texts`` (every text, each once) and ``pos`` (a
    text's row), ``ids`` (word pieces), ``feats`` (the cheap features), ``pooled`` (frozen
    layer :data:`LAYER`, mean-pooled), ``pieces`` (each text's word-piece states; ``None`` when
    built with ``pieces=False``), ``x`` (``[pooled, feats]``, the kernel's inputs), ``train_rows`` (the training texts' rows) and
    ``crows`` / ``side`` (the training half's Cochrane sentences' rows, +1 for an abstract's,
    -1 for a summary's).
    """

    def __init__(
        self, data_dir: Path, dev_dir: Path, probes: dict, halves: dict[str, list], pieces: bool = True
    ) -> None:
        self.fd = fd = FitData(data_dir, dev_dir)
        self.probes, self.halves = probes, halves
        self.meta = load_model(default_weights_dir("v3")).meta["model"]
        self.alin = float(self.meta["alin"])
        rval = readmepp_rows("en", "val", dev_dir)
        self.vlevel = np.array([r["rating"] for r in rval], dtype=float)
        self.vtexts = [r["sentence"] for r in rval]
        texts94, _ = probes["arts94"]
        asset_h, asset_e = probes["asset"]
        docs = texts94 + asset_h + asset_e
        needed = [t for key in ("tldr", "cochrane", "ose") for t in probes[key][0] + probes[key][1]]
        needed += [s for t in docs for s in split_sentences(t)]
        self.held_pairs = probes_mod.same_length_pairs(halves["held_abstract"], halves["held_summary"])
        needed += halves_sentences(halves)
        self.edits = probes_mod.stability_edits(probes["edit_pool"], probes["dev_sentences"])
        self.short_edits = [edit for edit in self.edits if len(words(edit[0])) < 10]
        needed += [t for edit in self.edits for t in edit]
        self.texts = list(dict.fromkeys(fd.texts + fd.readme_texts + self.vtexts + needed))
        self.pos = {t: i for i, t in enumerate(self.texts)}
        self.ids = self.tokenize(self.texts)
        self.feats = text_features(self.texts).astype(np.float64)
        self.train_rows = [self.pos[t] for t in fd.train_texts]
        self.crows = [self.pos[t] for t in halves["train_abstract"] + halves["train_summary"]]
        self.side = np.r_[np.ones(len(halves["train_abstract"])), -np.ones(len(halves["train_summary"]))]
        t0 = time.time()
        self.pieces: list[np.ndarray] | None = [] if pieces else None
        self.pooled = encode(transformer(LAYER, "cpu"), self.ids, self.pieces)
        self.x = self.inputs(pooled=self.pooled)
        print(f"frozen MiniLM: {len(self.texts)} texts encoded in {time.time() - t0:.0f} s", file=sys.stderr)

    def inputs(self, model=None, pooled: np.ndarray | None = None) -> np.ndarray:
        """The kernel's inputs of every text: ``pooled`` (or the mean-pooled layer :data:`LAYER`
        of ``model``, such as a fine-tuned MiniLM) beside the cheap features."""
        return np.hstack([encode(model, self.ids) if pooled is None else pooled, self.feats])

    @staticmethod
    def tokenize(batch: Sequence[str]) -> list[list[int]]:
        tok = load_encoder("cpu").tokenizer
        return [tok(t, truncation=True, max_length=MAX_WORD_PIECES)["input_ids"] for t in batch]

    def measure(self, pred: np.ndarray) -> dict[str, float]:
        """The figures of :data:`FIT_COLUMNS` for ``pred``, one value per text of ``texts`` (values
        past them are not read), and ``edits_short``, the edits of sentences under 10 words."""
        fd, probes, halves, pos = self.fd, self.probes, self.halves, self.pos
        v = dict(zip(self.texts, pred))
        out = {"gpt4_fold": float(spearmanr(pred[[pos[fd.texts[i]] for i in fd.test_idx]], fd.elo[fd.test_idx])[0])}
        for key in ("tldr", "cochrane", "ose"):
            hard, easy, pairs = probes[key]
            out[key] = probes_mod.share_higher(
                np.array([v[hard[i]] for i in pairs[:, 0]]), np.array([v[easy[j]] for j in pairs[:, 1]])
            )
        xv = np.array([v[t] for t in self.vtexts])
        out["readmepp"] = float(spearmanr(xv, self.vlevel)[0])
        out["readmepp_partial"] = partial_spearman(
            xv, self.vlevel, np.log([max(len(words(t)), 1) for t in self.vtexts])
        )

        def doc(t: str) -> float:
            return weighted_mean(reading_units(t, "mean"), v.__getitem__)

        texts94, human94 = probes["arts94"]
        asset_h, asset_e = probes["asset"]
        out["arts94"] = float(spearmanr([doc(t) for t in texts94], human94)[0])
        out["asset"] = probes_mod.share_higher(
            np.array([doc(t) for t in asset_h]), np.array([doc(t) for t in asset_e])
        )
        out["cochrane_held"] = probes_mod.share_higher(
            np.array([v[halves["held_abstract"][i]] for i in self.held_pairs[:, 0]]),
            np.array([v[halves["held_summary"][j]] for j in self.held_pairs[:, 1]]),
        )
        out["cochrane_written_held"] = float(
            np.mean([doc(r["abstract"]) > doc(r["plain_language_summary"]) for r in halves["held_reviews"]])
        )
        pool = pred[[pos[t] for t in fd.texts]]
        out["edits"] = edit_moves(pool, [(v[a], v[b]) for a, b in self.edits])
        out["edits_short"] = edit_moves(pool, [(v[a], v[b]) for a, b in self.short_edits])
        return out

    def kernel(
        self,
        x: np.ndarray,
        rows: Sequence[int],
        y: np.ndarray,
        weight: np.ndarray | None,
        extra: np.ndarray | None = None,
        alpha: float = training.KRR_ALPHA,
        gamma_scale: float = 1.0,
    ) -> np.ndarray:
        """learned-3's kernel ridge on ``x`` (ridge penalty ``alpha``, RBF gamma learned-3's
        times ``gamma_scale``); ``extra`` columns join the inputs standardised and multiplied
        by :data:`PIECE_COLUMN_WEIGHT`."""
        if extra is not None:
            x = np.hstack([x, extra])
        std = training.Standardiser(x[rows])
        zx = std(x)
        if extra is not None:
            zx[:, -extra.shape[1] :] *= PIECE_COLUMN_WEIGHT
        g = gamma_scale * float(self.meta["gamma"]) * x.shape[1]  # learned-3's gamma = g / inputs
        n_repr = x.shape[1] - self.feats.shape[1] - (0 if extra is None else extra.shape[1])
        params = training.fit_kernel(zx[rows], y, self.alin, g, 1.0, n_repr=n_repr, sample_weight=weight, alpha=alpha)
        return training.predict_kernel(params, zx)

    def with_cochrane(
        self,
        base: np.ndarray | None,
        y: np.ndarray,
        weight: np.ndarray,
        nudge: float,
        x: np.ndarray | None = None,
        copies: tuple[np.ndarray, np.ndarray, float] | None = None,
        **kernel: float,
    ) -> np.ndarray:
        """The training rows (targets ``y``, weights ``weight``) joined by the training half's
        Cochrane sentences, each weighing 1 and targeted at ``base``'s value of it moved up (an
        abstract's) or down (a summary's) by ``nudge`` Elo points, as learned-4 is trained:
        the rows say which register is harder without putting Cochrane on a scale of its own.
        ``base`` None: the first fit of learned-4's construction, on the training rows (and
        their copies), with the same ``x`` and ``kernel``.

        ``x``: the inputs (default :attr:`x`). ``copies``: ``(rows, sources, w)``, rows of
        ``x`` that join the fit each with its source's target and ``w`` times its weight, a
        source being a position in the training rows followed by the Cochrane sentences.
        ``kernel``: :meth:`kernel`'s ``alpha`` and ``gamma_scale``."""
        x = self.x if x is None else x
        if base is None:
            base = self.kernel(x, *_joined(self.train_rows, y, weight, copies, len(self.train_rows)), **kernel)
        rows = [*self.train_rows, *self.crows]
        y = np.r_[y, base[self.crows] + nudge * self.side]
        rows, y, weight = _joined(rows, y, np.r_[weight, np.ones(len(self.crows))], copies, len(rows))
        return self.kernel(x, rows, y, weight, **kernel)


def fit_part(data_dir: Path, dev_dir: Path, probes: dict, halves: dict[str, list]) -> dict[str, dict[str, float]]:
    bench = FitBench(data_dir, dev_dir, probes, halves)
    fd, x, train_rows, measure, kernel = bench.fd, bench.x, bench.train_rows, bench.measure, bench.kernel
    rows: dict[str, dict[str, float]] = {}
    preds = {}
    for rw in README_WEIGHTS:
        preds[rw] = kernel(x, train_rows, fd.train_y, fd.weights(rw))
        name = (
            "frozen MiniLM, README++ weight "
            + f"{rw:g}"
            + (" (learned-3's fit)" if rw == training.README_WEIGHT else "")
        )
        rows[name] = measure(preds[rw])
    alone = kernel(x, train_rows[fd.n_pool :], fd.readme_target, None)
    rows["frozen MiniLM, README++ train alone"] = measure(alone)

    def z(p: np.ndarray) -> np.ndarray:
        return (p - p.mean()) / p.std()

    for a in ENSEMBLE_SHARES:
        rows[f"average of the two, README++ alone weighing {a:g}"] = measure(
            (1 - a) * z(preds[training.README_WEIGHT]) + a * z(alone)
        )
    readme_w = fd.weights(training.README_WEIGHT)
    rows["hardest word pieces joined to the inputs (top-3 mean, 90th percentile)"] = measure(
        kernel(
            x,
            train_rows,
            fd.train_y,
            readme_w,
            cross_fitted_summaries(bench.pooled, bench.pieces, train_rows, fd, readme_w),
        )
    )
    t0 = time.time()
    head = fit_attention(bench.pieces, bench.feats, train_rows, fd.train_y, readme_w)
    print(f"attention head: {time.time() - t0:.0f} s", file=sys.stderr)
    rows["attention over word pieces (a head on frozen layer 4)"] = measure(head)
    rows["average of learned-3's fit and the attention head"] = measure(
        0.5 * z(preds[training.README_WEIGHT]) + 0.5 * z(head)
    )
    for nudge in COCHRANE_NUDGES:
        row = measure(bench.with_cochrane(preds[training.README_WEIGHT], fd.train_y, readme_w, nudge))
        row["cochrane"] = float("nan")  # trained on half of these reviews: not out of sample
        rows[f"half the Cochrane reviews trained on, nudged {nudge:g} Elo"] = row
    for epochs, lr in FINE_TUNES:
        t0 = time.time()
        model = fine_tune(fd.train_texts, fd.train_y, fd.weights(training.README_WEIGHT), bench.tokenize, epochs, lr)
        xf = bench.inputs(model)
        rows[f"layers 1-{LAYER} fine-tuned, {epochs:g} epochs at lr {lr:g}"] = measure(
            kernel(xf, train_rows, fd.train_y, fd.weights(training.README_WEIGHT))
        )
        print(f"fine-tune {epochs:g} epochs, lr {lr:g}: {time.time() - t0:.0f} s", file=sys.stderr)
    return rows


def cross_fitted_summaries(
    pooled: np.ndarray, pieces: list[np.ndarray], train_rows: Sequence[int], fd: FitData, weight: np.ndarray
) -> np.ndarray:
    """:func:`piece_summaries` of every text: a training row's from a scorer fitted on the other
    folds (5, seed :data:`SEED`), so that no row's own target reaches its inputs; every other
    text's from a scorer fitted on all training rows."""
    from sklearn.model_selection import KFold

    train_rows = np.asarray(train_rows)
    out = piece_summaries(pieces, *piece_scorer(pooled[train_rows], fd.train_y, weight))
    for fit, held in KFold(training.FOLDS, shuffle=True, random_state=SEED).split(train_rows):
        w, b = piece_scorer(pooled[train_rows[fit]], fd.train_y[fit], weight[fit])
        out[train_rows[held]] = piece_summaries([pieces[i] for i in train_rows[held]], w, b)
    return out


def fit_attention(
    pieces: list[np.ndarray], feats: np.ndarray, train_rows: Sequence[int], y: np.ndarray, weight: np.ndarray
) -> np.ndarray:
    """:func:`attention_head` fitted on the training rows (weighted squared error on targets in
    pool standard deviations, AdamW, one-cycle schedule, batches of texts of similar length,
    seed :data:`SEED`); its prediction for every text."""
    import torch

    epochs, lr, size = ATTENTION_FIT
    torch.manual_seed(SEED)
    rng = np.random.default_rng(SEED)
    train_rows = np.asarray(train_rows)
    every = np.concatenate([pieces[i] for i in train_rows if len(pieces[i])])
    mu, sd = every.mean(0), every.std(0) + 1e-3
    f = training.Standardiser(feats[train_rows])(feats)  # a dead feature standardises to 0

    def batch(rows: Sequence[int]):
        n = max(1, max(len(pieces[i]) for i in rows))
        states = np.zeros((len(rows), n, mu.size), np.float32)
        mask = np.zeros((len(rows), n), np.float32)
        mask[:, 0] = 1.0  # a text without a piece reads one zero state
        for k, i in enumerate(rows):
            states[k, : len(pieces[i])] = (pieces[i] - mu) / sd
            mask[k, : len(pieces[i])] = 1.0
        return torch.tensor(states), torch.tensor(mask), torch.tensor(f[rows], dtype=torch.float32)

    head = attention_head(mu.size, feats.shape[1])
    target = torch.tensor((y - training.START_RATING) / 36.0, dtype=torch.float32)  # a pool SD is ~36 Elo
    w = torch.tensor(weight, dtype=torch.float32)
    by_length = np.argsort([len(pieces[i]) for i in train_rows], kind="stable")
    batches = [by_length[i : i + size] for i in range(0, len(by_length), size)]
    opt = torch.optim.AdamW(head.parameters(), lr=lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, lr, total_steps=epochs * len(batches))
    for _ in range(epochs):
        head.train()
        for b in rng.permutation(len(batches)):
            rows = batches[b]
            pred = head(*batch(train_rows[rows]))
            loss = (w[rows] * (pred - target[rows]) ** 2).sum() / w[rows].sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    head.eval()
    out = np.zeros(len(pieces))
    order = np.argsort([len(p) for p in pieces], kind="stable")
    with torch.no_grad():
        for i in range(0, len(order), 256):
            rows = order[i : i + 256]
            out[rows] = head(*batch(rows)).numpy()
    return out


# ----------------------------------------------------------------------------- part 2: reading
def reading_part(data_dir: Path, dev_dir: Path, probes: dict) -> dict[str, dict[str, float]]:
    def rows_of(name: str) -> list[dict]:
        return probes_mod._jsonl(dev_dir / name)

    ose = rows_of("onestopenglish_dev.jsonl")
    cochrane = rows_of("cochrane_pls_val.jsonl")
    scitldr = load_scitldr(dev_dir)
    elementary = [r["text"] for r in ose if r["level"] == "elementary"]
    advanced = [r["text"] for r in ose if r["level"] == "advanced"]
    long_abstract_sentences = [s for r in cochrane for s in split_sentences(r["abstract"]) if len(words(s)) >= 25]
    short_hard = long_abstract_sentences + [tldr for tldr, _ in scitldr]
    texts94, human94 = probes["arts94"]
    asset_h, asset_e = probes["asset"]
    every = (
        elementary
        + advanced
        + short_hard
        + [abstract for _, abstract in scitldr]
        + [r[k] for r in cochrane for k in ("abstract", "plain_language_summary")]
        + texts94
        + asset_h
        + asset_e
    )
    units = sorted({u for t in every for cut in READING_RULES.values() for u, _ in reading_units(t, *cut)})
    t0 = time.time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # texts past MiniLM's 256 word pieces are cut, as the rule says
        # each piece placed in the pool as one unit; its arts read back on the pool's scale, as
        # the default rule reads its sentences' before averaging them
        placed = score_texts(units, judge="learned:v3", long_texts="whole", formulas=(), data_dir=data_dir)["arts"]
        # The default row is compute's own: a sentence without a word placed as a text of its own
        # is fixed at the top of the scale, while inside a text the judge reads it.
        texts = list(dict.fromkeys(every))
        default = dict(
            zip(texts, np.asarray(score_texts(texts, judge="learned:v3", formulas=(), data_dir=data_dir)["arts_elo"]))
        )
    ratings = rating_of_pool_position(load_pool("arts3000", data_dir).ratings, np.asarray(placed, dtype=float))
    score = dict(zip(units, ratings))
    print(f"reading rules: {len(units)} pieces scored in {time.time() - t0:.0f} s", file=sys.stderr)
    out = {}
    for rule, cut in READING_RULES.items():

        def v(t: str) -> float:
            return default[t] if cut[0] == "mean" else weighted_mean(reading_units(t, *cut), score.__getitem__)

        elem = [v(t) for t in elementary]
        out[rule] = {
            "short_hard": harder_share([v(t) for t in short_hard], elem, easier_if_higher=False),
            "tldr_easier": float(np.mean([v(tldr) < v(abstract) for tldr, abstract in scitldr])),
            "cochrane": float(np.mean([v(r["abstract"]) > v(r["plain_language_summary"]) for r in cochrane])),
            "ose_articles": float(np.mean([v(a) > v(e) for a, e in zip(advanced, elementary)])),
            "arts94": float(spearmanr([v(t) for t in texts94], human94)[0]),
            "asset": probes_mod.share_higher(np.array([v(t) for t in asset_h]), np.array([v(t) for t in asset_e])),
        }
    return out


# ----------------------------------------------------------------------------- part 3: edits
def edits_part(probes: dict) -> dict:
    edits = probes_mod.stability_edits(probes["edit_pool"], probes["dev_sentences"])
    before, after = [s for s, _ in edits], [e for _, e in edits]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arts = np.asarray(score_texts(before + after, judge="learned:v3", formulas=())["arts"], dtype=float)
    delta = np.abs(arts[len(before) :] - arts[: len(before)])
    judge = LearnedJudge("v3", progress=False)
    xb, xa = judge._inputs(before), judge._inputs(after)
    model, nr = judge.model, judge.model.n_repr
    base = model.predict(xb)
    mixed_repr, mixed_feat = xa.copy(), xb.copy()
    mixed_repr[:, nr:] = xb[:, nr:]
    mixed_feat[:, nr:] = xa[:, nr:]
    latent = {
        "whole edit": np.abs(model.predict(xa) - base),
        "MiniLM's states only (features kept)": np.abs(model.predict(mixed_repr) - base),
        "cheap features only (states kept)": np.abs(model.predict(mixed_feat) - base),
    }
    familiar = familiar_words()
    kinds = np.array([edit_kind(s, e, familiar) for s, e in edits])
    n_words = np.array([len(words(s)) for s in before])
    groups = {"every edit": np.ones(len(edits), bool)}
    groups |= {k: kinds == k for k in ("written twice", "familiar word removed", "other word removed")}
    groups["every edit but an unfamiliar word removed"] = kinds != "other word removed"
    groups |= {
        f"sentences of {lo}-{hi - 1} words" if hi < 10_000 else f"sentences of {lo}+ words": (n_words >= lo)
        & (n_words < hi)
        for lo, hi in LENGTH_BANDS
    }
    by_group = {
        name: (int(m.sum()), float(np.percentile(delta[m], 99)), float(np.percentile(latent["whole edit"][m], 99)))
        for name, m in groups.items()
        if m.any()
    }
    slope = float(np.median(delta / np.maximum(latent["whole edit"], 1e-9)))
    return {
        "by_group": by_group,
        "latent": {k: float(np.percentile(d, 99)) for k, d in latent.items()},
        "slope": slope,
    }


# ----------------------------------------------------------------------------- report
FIT_COLUMNS = {
    "gpt4_fold": "GPT-4, held-out fold",
    "tldr": "TLDR / elementary",
    "cochrane": "Cochrane same length",
    "ose": "OneStopEnglish",
    "readmepp": "README++ val",
    "readmepp_partial": "README++ partial",
    "arts94": "ARTS94",
    "asset": "ASSET",
    "cochrane_held": "Cochrane same length, held-out half",
    "cochrane_written_held": "Cochrane as written, held-out half",
    "edits": "one-word edits, 99th pct of the move in pool position",
}
READING_COLUMNS = {
    "short_hard": "short hard text > elementary article (goal .95)",
    "tldr_easier": "TLDR easier than its abstract (goal .30-.70)",
    "cochrane": "Cochrane as written (goal .93)",
    "ose_articles": "OneStopEnglish advanced > elementary article",
    "arts94": "ARTS94 (goal .83)",
    "asset": "ASSET (goal .75)",
}


def report_head(title: str, script: str, seconds: float) -> list[str]:
    """The first lines of a directions script's report: its title, the script and its run time."""
    return [
        f"# {title}",
        "",
        f"Printed by `benchmarks/{script}` (see its docstring for each row and figure). "
        f"Run time {seconds / 60:.0f} minutes on this machine's CPU.",
    ]


def _figure(value: float, digits: int = 3) -> str:
    return "—" if np.isnan(value) else f"{value:.{digits}f}"


def held_out_formulas(halves: dict[str, list]) -> dict[str, tuple[float, float]]:
    """``judge_probes.py``'s formulas (FKGL, FRE negated, Dale-Chall: higher = harder) on the
    held-out Cochrane half: the same-length share and the as-written share (abstract harder
    than its summary)."""
    pairs = probes_mod.same_length_pairs(halves["held_abstract"], halves["held_summary"])
    n, reviews = len(halves["held_abstract"]), halves["held_reviews"]
    sentences = probes_mod.values(halves["held_abstract"] + halves["held_summary"], None)
    whole = probes_mod.values([r[k] for k in ("abstract", "plain_language_summary") for r in reviews], None)
    return {
        name: (
            probes_mod.share_higher(sentences[name][:n][pairs[:, 0]], sentences[name][n:][pairs[:, 1]]),
            probes_mod.share_higher(whole[name][: len(reviews)], whole[name][len(reviews) :]),
        )
        for name in probes_mod.FORMULA_ROWS.values()
    }


def report(results: dict, seconds: float) -> str:
    lines = report_head("Directions for a judge that reads words beyond length", "judge_directions.py", seconds)
    if "fit" in results:
        lines += [
            "",
            "## The judge's inputs and fit (fold 0 of the grouped CV held out; README++ val out of sample)",
            "",
        ]
        lines += _table(
            ["row", *FIT_COLUMNS.values()],
            [[name, *(_figure(r[k]) for k in FIT_COLUMNS)] for name, r in results["fit"].items()],
        )
        f = results["fit_formulas"]
        lines += [
            "",
            "The Cochrane figures of the held-out half (the odd-numbered reviews; sentences also found "
            f"in an even-numbered review left out), by the formulas: same length FKGL {f['FKGL'][0]:.3f}, "
            f"FRE {f['FRE'][0]:.3f}, Dale-Chall {f['Dale-Chall'][0]:.3f}; as written Dale-Chall "
            f"{f['Dale-Chall'][1]:.3f}. A row trained on Cochrane has no all-reviews figure (—).",
        ]
    if "reading" in results:
        lines += ["", "## How a text of several sentences is read (learned-3)", ""]
        lines += _table(
            ["rule", *READING_COLUMNS.values()],
            [[rule, *(f"{r[k]:.3f}" for k in READING_COLUMNS)] for rule, r in results["reading"].items()],
        )
    if "edits" in results:
        e = results["edits"]
        lines += ["", "## One-word edits (learned-3): 99th percentile of the change", ""]
        lines += _table(
            ["edits", "n", "Δarts, absolute (goal .05)", "Δ latent, absolute, Elo"],
            [[name, str(n), f"{d:.3f}", f"{el:.1f}"] for name, (n, d, el) in e["by_group"].items()],
        )
        lines += [
            "",
            "The latent change (Elo points, 99th percentile) split by what the edit reaches: "
            + "; ".join(f"{k} {v:.1f}" for k, v in e["latent"].items())
            + f". One Elo point is about {e['slope']:.4f} in `arts` here (median over the edits).",
        ]
    return "\n".join(lines) + "\n"


def parse_args(doc: str, known: Sequence[str], argv: list[str] | None) -> tuple[list[str], Path, Path]:
    """The command line of a directions script (``doc``, its docstring): the parts of ``known``
    asked for by ``--parts`` (default: all), the development sets' folder and the ARTS data
    folder."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--parts", default=",".join(known), help=f"comma-separated, of {', '.join(known)} (default: all)")
    ap.add_argument("--dev-dir", default=None, help="development sets (default: $ARTS_DEV_DIR or ../shared/dev)")
    ap.add_argument("--data-dir", default=None, help="ARTS data folder (default: $ARTS_DATA_DIR or ../shared/arts)")
    args = ap.parse_args(argv)
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(known))
    if unknown or not parts:
        ap.error(f"--parts takes some of {', '.join(known)}; got {args.parts!r}")
    return parts, find_dev_dir(args.dev_dir), Path(arts_data.find_data_dir(args.data_dir))


def start(doc: str, known: Sequence[str], argv: list[str] | None) -> tuple[list[str], Path, Path, dict, dict]:
    """:func:`parse_args`, then the sets every part reads: the probes of ``judge_probes.py`` and
    the Cochrane split learned-4 trains on (:func:`arts_metric.data.cochrane_halves`)."""
    parts, dev_dir, data_dir = parse_args(doc, known, argv)
    return parts, dev_dir, data_dir, probes_mod.load_probes(dev_dir, data_dir), arts_data.cochrane_halves(dev_dir)


def print_report(text: str, name: str, parts: Sequence[str], known: Sequence[str]) -> None:
    """Print ``text``; when every part of ``known`` ran, also write it to ``benchmarks/results/name``."""
    print(text)
    if set(parts) == set(known):
        (RESULTS / name).write_text(text, encoding="utf-8")
        print(f"written: {RESULTS / name}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    t0 = time.time()
    parts, dev_dir, data_dir, probes, halves = start(__doc__, PARTS, argv)
    results = {}
    if "fit" in parts:
        results["fit"] = fit_part(data_dir, dev_dir, probes, halves)
        results["fit_formulas"] = held_out_formulas(halves)
    if "reading" in parts:
        results["reading"] = reading_part(data_dir, dev_dir, probes)
    if "edits" in parts:
        results["edits"] = edits_part(probes)
    print_report(report(results, time.time() - t0), "judge_directions.md", parts, PARTS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
