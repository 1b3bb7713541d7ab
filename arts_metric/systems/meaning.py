"""Meaning kept: how much of its source an output says, by **source recall**, a
BERTScore-style alignment (Zhang et al. 2020, recall side) over the contextual token
states of the MiniLM encoder the learned judge already loads (offline).

Each text is cut into its sentences and every sentence is encoded alone. For every
content word piece of the source (letters or digits, not an English stop word), its
best cosine with any word piece of the output; a source's **recall** is the mean of
those (0-1, higher = more of the source said again, 1 = every piece found as is).
A restatement in other words keeps much of it (related words sit close in the
encoder's space); what an output leaves out is found only by chance.

**Meaning kept** is what the output keeps of the source's *worse-kept half*, counting
in each half what that half says that the other half does not. The source's content
word pieces are cut into a first and a second half. Each piece of a half has a
**novelty**, one minus its best cosine with any piece of the other half (a term the
source repeats in both halves has novelty near 0, a term only this half uses near 1).
A half's **new recall** is how far the output's best match of each piece goes beyond
what the other half already offers, relative to its novelty:
``sum(max(best - other, 0)) / sum(1 - other)`` over the half's pieces (0-1; a half
without a new piece falls back on its recall). A half is kept by
``RECALL_SHARE * recall + (1 - RECALL_SHARE) * new recall`` (the small share of plain
recall orders outputs that say nothing new of a half), and meaning kept is the lower of
the two halves. An output that says only the beginning of its source says nothing of
its end beyond what that beginning already does, however often the source repeats its
terms, and keeps that end at about 0; a real simplification, which shortens everywhere
in other words, says something of both. (On the development sets this ranks a source
cut to its first half below the real plain-language summary of a Cochrane abstract on
.90 of inputs, against .27 for the plain recall of the worse-kept half and .02 for the
recall of the whole source; ``benchmarks/meaning_guard.py``.)

An output is **flagged** (it may have dropped content) when

- its recall is below :data:`FLAG_BELOW`, or
- it is **cut short**: the second half of its source (in content word pieces) is
  recalled less than the first half by more than :data:`CUT_SHORT`, and by more than
  :data:`CUT_SHORT_T` standard errors. A system that
  keeps the beginning of each source has full recall of that beginning; a real
  simplification shortens everywhere.

Why this measure: the sentence-embedding cosine used before rates a source's first
nine words close to the whole source; ``bert_score`` itself loads its checkpoints from
the Hub (not offline), has no rescaling baseline for MiniLM, and its optional IDF
weights are computed from the batch (a score must not depend on it; the novelty
weights here come from the source alone); entailment needs an NLI model no registry
package bundles. ``benchmarks/meaning_guard.py`` measures how it ranks and flags real
simplifications against sources cut to their first five words and to their first half.
It measures content kept, not correctness: a fluent output that says the opposite keeps
its words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

#: Outputs whose source recall is below this are flagged (they may have dropped content).
FLAG_BELOW = 0.4
#: Cut short: recall of the source's first half minus recall of its second half above this ...
CUT_SHORT = 0.15
#: ... and above this many standard errors of that difference (Welch's t over the content pieces),
#: so that a short sentence's chance differences between its halves do not count.
CUT_SHORT_T = 2.0
#: Share of a half's plain recall in how well it is kept (the rest is its new recall, what the
#: output says of the half beyond what the source's other half already offers).
RECALL_SHARE = 0.05

#: The caveat shown with the column.
SIMPLICITY_ONLY = (
    "ARTS measures how simple outputs are, not whether they keep their sources' meaning: a system that cuts "
    "its sources short can rank as simple as a good one, so report what is kept beside it (the meaning kept "
    "column when sources are given, or SARI with references)"
)

MEANING_NOTE = (
    f"meaning kept: source recall of the source's worse-kept half (BERTScore-style: each content word piece of "
    f"the source matched to its closest word piece of the output, MiniLM token states; in the first and in the "
    f"second half of the source, how far those matches go beyond what the other half of the source already "
    f"says, so that terms the source repeats do not count twice; the lower of the two halves; 1 = all said "
    f"again), mean per system; in brackets the outputs flagged as possibly dropping content: recall of the whole source below "
    f"{FLAG_BELOW:g}, or cut "
    f"short (the source's second half recalled {CUT_SHORT:g} less than its first, beyond chance). It counts content kept, not "
    "whether it is said correctly"
)


def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def _content_states(texts: Sequence[str], device: str) -> list[np.ndarray]:
    """Per text, the unit-length states of its content word pieces, sentence by sentence
    in reading order, ``(n, 384)``. Each distinct sentence is encoded once, alone."""
    from arts_metric.device import cpu_threads
    from arts_metric.judges.learned.encoder import EMBED_DIM, token_states
    from arts_metric.segment import split_sentences
    from arts_metric.wordless import has_word

    split = [split_sentences(t) if has_word(t) else [] for t in texts]  # a text without a word says nothing
    unique = list(dict.fromkeys(s for sentences in split for s in sentences))
    stop = _stop_words()
    content = {}
    for sentence, (pieces, states) in zip(unique, token_states(unique, device=device, workers=cpu_threads())):
        keep = [i for i, p in enumerate(pieces) if any(c.isalnum() for c in p) and p not in stop]
        content[sentence] = states[keep]
    empty = np.zeros((0, EMBED_DIM), dtype=np.float32)
    return [np.concatenate([content[s] for s in sentences]) if sentences else empty for sentences in split]


def _new_recall(best: np.ndarray, other: np.ndarray) -> float:
    """What an output says of a half beyond what the source's other half already offers:
    ``sum(max(best - other, 0)) / sum(1 - other)`` over the half's pieces, in [0, 1]; the
    half's recall when no piece of it is new."""
    novelty = (1.0 - other).sum()
    if novelty <= 1e-6:
        return float(best.mean())
    return float(np.clip(best - other, 0.0, None).sum() / novelty)


def _recall(source: np.ndarray, output: np.ndarray) -> tuple[float, ...]:
    """Recall of the whole source, of its first half and of its second half, how many
    standard errors apart the two halves' recalls are (Welch's t; NaN when a half has
    fewer than two pieces), and the new recall of each half (:func:`_new_recall`)."""
    if len(source) == 0:
        return (float("nan"),) * 6
    best = (source @ output.T).max(axis=1) if len(output) else np.zeros(len(source), dtype=np.float32)
    best = np.clip(best.astype(np.float64), 0.0, 1.0)
    half = (len(best) + 1) // 2
    head, tail = best[:half], (best[half:] if len(best) > 1 else best)
    if len(best) > 1:  # each piece's best cosine with the other half of the source
        cross = np.clip((source[:half] @ source[half:].T).astype(np.float64), 0.0, 1.0)
        other_head, other_tail = cross.max(axis=1), cross.max(axis=0)
    else:  # one piece: no other half
        other_head = other_tail = np.zeros(1)
    t = float("nan")
    if len(head) > 1 and len(tail) > 1:
        diff = head.mean() - tail.mean()
        se = np.sqrt(head.var(ddof=1) / len(head) + tail.var(ddof=1) / len(tail))
        t = float(diff / se) if se > 0 else float(np.copysign(np.inf, diff)) if diff else 0.0
    return (
        float(best.mean()),
        float(head.mean()),
        float(tail.mean()),
        t,
        _new_recall(head, other_head),
        _new_recall(tail, other_tail),
    )


def _checks(outputs: list[np.ndarray], sources: list[np.ndarray]) -> pd.DataFrame:
    rows = [_recall(s, o) for o, s in zip(outputs, sources)]
    columns = ["recall", "recall_head", "recall_tail", "head_over_tail_t", "new_head", "new_tail"]
    frame = pd.DataFrame(rows, columns=columns)
    kept = {
        half: RECALL_SHARE * frame[f"recall_{half}"] + (1 - RECALL_SHARE) * frame[f"new_{half}"]
        for half in ("head", "tail")
    }
    frame.insert(0, "meaning_kept", np.minimum(kept["head"], kept["tail"]))
    low = frame["recall"] < FLAG_BELOW
    cut = ((frame["recall_head"] - frame["recall_tail"]) > CUT_SHORT) & (frame["head_over_tail_t"] > CUT_SHORT_T)
    frame["low_recall"], frame["cut_short"], frame["flagged"] = low, cut, low | cut
    return frame


def meaning_checks(outputs: Sequence[str], sources: Sequence[str], device: str = "cpu") -> pd.DataFrame:
    """Per output: ``meaning_kept`` (what it keeps of the source's worse-kept half: per half
    ``RECALL_SHARE`` of its recall plus the rest of its new recall, the lower of the two; in
    [0, 1], higher = more kept), ``recall`` of the whole source, ``recall_head`` and
    ``recall_tail`` (of the first and the second half of the source's content word pieces),
    ``head_over_tail_t`` (their difference in standard errors), ``new_head`` and
    ``new_tail`` (each half's new recall: how far the output's matches go beyond what the
    source's other half already offers, relative to the half's novelty),
    ``low_recall``, ``cut_short`` and ``flagged`` (either).

    Each value is a function of the output and its source alone. A source without a
    content word gets ``NaN`` recall and is not flagged; an output without a word
    (:func:`arts_metric.wordless.has_word`) keeps nothing (recall 0).

    Raises
    ------
    ValueError
        When there is not one output per source.
    """
    if len(outputs) != len(sources):
        raise ValueError(f"{len(outputs)} outputs for {len(sources)} sources")
    states = _content_states(list(outputs) + list(sources), device)
    return _checks(states[: len(outputs)], states[len(outputs) :])


def system_checks(
    outputs: Mapping[str, Sequence[str]], sources: Sequence[str], device: str = "cpu"
) -> dict[str, pd.DataFrame]:
    """:func:`meaning_checks` of every system's outputs against the same sources (each
    distinct sentence encoded once for all of them).

    Raises
    ------
    ValueError
        When a system's outputs are not one per source.
    """
    for name, texts in outputs.items():
        if len(texts) != len(sources):
            raise ValueError(f"system {name!r} has {len(texts)} outputs for {len(sources)} sources")
    names, n = list(outputs), len(sources)
    states = _content_states([t for name in names for t in outputs[name]] + list(sources), device)
    source = states[len(names) * n :]
    return {name: _checks(states[k * n : (k + 1) * n], source) for k, name in enumerate(names)}


def meaning_kept(outputs: Mapping[str, Sequence[str]], sources: Sequence[str], device: str = "cpu") -> pd.DataFrame:
    """Per system: ``meaning_kept`` (the mean over its outputs of what each keeps of its
    source's worse-kept half, in [0, 1], higher = more kept; see :func:`meaning_checks`) and ``meaning_flagged`` (how many outputs are
    flagged: low recall or cut short).

    Raises
    ------
    ValueError
        When a system's outputs are not one per source.
    """
    checks = system_checks(outputs, sources, device)
    return pd.DataFrame(
        [
            {
                "system": name,
                "meaning_kept": float(c["meaning_kept"].mean()),
                "meaning_flagged": int(c["flagged"].sum()),
            }
            for name, c in checks.items()
        ]
    )
