"""Meaning kept: how much of its source an output says, by **source recall**, a
BERTScore-style alignment (Zhang et al. 2020, recall side) over the contextual token
states of the MiniLM encoder the learned judge already loads (offline).

Each text is cut into its sentences and every sentence is encoded alone. For every
content word piece of the source (letters or digits, not an English stop word), its
best cosine with any word piece of the output; a source's **recall** is the mean of
those (0-1, higher = more of the source said again, 1 = every piece found as is).
A restatement in other words keeps much of it (related words sit close in the
encoder's space); what an output leaves out is found only by chance.

**Meaning kept** is what the output keeps of the source's *worse-kept end*, counting in
each end what it says that the rest of the source does not. The source's content word
pieces are read as a **start** (its first :data:`END_SHARE` of them) and an **end** (its
last :data:`END_SHARE`), with the middle between them. Each piece of an end has a
**novelty**, one minus its best cosine with any piece of the rest of the source (a term
the source repeats elsewhere has novelty near 0, a term only this end uses near 1). An
end's **new recall** is how far the output's best match of each piece goes beyond what
the rest of the source already offers, relative to its novelty:
``sum(max(best - other, 0)) / sum(1 - other)`` over the end's pieces (0-1; an end
without a new piece falls back on its recall). An end is kept by
``RECALL_SHARE * recall + (1 - RECALL_SHARE) * new recall`` (the small share of plain
recall orders outputs that say nothing new of an end), and meaning kept is the lower of
the two ends. An output that says only the beginning of its source says nothing of its
end beyond what that beginning already does, however often the source repeats its
terms, and keeps that end at about 0; a real simplification, which shortens everywhere
in other words, says something of both. The ends stop short of the middle so that an
output cut a little after the source's middle (a cut in words often holds more than half
of the content pieces) still keeps nothing of the end. (On the development sets this
ranks a source cut to its first half below the real plain-language summary of a
Cochrane abstract on .988 of inputs, against .89 with the two halves meeting in the
middle and .02 for the recall of the whole source; ``benchmarks/meaning_guard.py``.)

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
#: Share of the source's content word pieces in each of its two ends (its start and its end).
END_SHARE = 0.4
#: Share of an end's plain recall in how well it is kept (the rest is its new recall, what the
#: output says of the end beyond what the rest of the source already offers).
RECALL_SHARE = 0.05

#: The caveat shown with the column.
SIMPLICITY_ONLY = (
    "ARTS measures how simple outputs are, not whether they keep their sources' meaning: a system that cuts "
    "its sources short can rank as simple as a good one, so report what is kept beside it (the meaning kept "
    "column when sources are given, or SARI with references)"
)

MEANING_NOTE = (
    f"meaning kept: source recall of the source's worse-kept end (BERTScore-style: each content word piece of "
    f"the source matched to its closest word piece of the output, MiniLM token states; in the source's first and "
    f"in its last {END_SHARE:.0%} of content pieces, how far those matches go beyond what the rest of the source "
    f"already says, so that terms the source repeats do not count twice; the lower of the two ends; 1 = all said "
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
    from arts_metric.text.sentences import split_sentences
    from arts_metric.text.wordless import has_word

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
    """What an output says of an end of its source beyond what the rest of the source already
    offers: ``sum(max(best - other, 0)) / sum(1 - other)`` over the end's pieces, in [0, 1];
    the end's recall when no piece of it is new."""
    novelty = (1.0 - other).sum()
    if novelty <= 1e-6:
        return float(best.mean())
    return float(np.clip(best - other, 0.0, None).sum() / novelty)


def _recall(source: np.ndarray, output: np.ndarray) -> tuple[float, ...]:
    """Recall of the whole source, of its first half and of its second half, how many
    standard errors apart the two halves' recalls are (Welch's t; NaN when a half has
    fewer than two pieces), and the new recall of the source's start and of its end (its
    first and last :data:`END_SHARE` of pieces, :func:`_new_recall`)."""
    if len(source) == 0:
        return (float("nan"),) * 8
    best = (source @ output.T).max(axis=1) if len(output) else np.zeros(len(source), dtype=np.float32)
    best = np.clip(best.astype(np.float64), 0.0, 1.0)
    n = len(best)
    half = (n + 1) // 2
    head, tail = best[:half], (best[half:] if n > 1 else best)
    t = float("nan")
    if len(head) > 1 and len(tail) > 1:
        diff = head.mean() - tail.mean()
        se = np.sqrt(head.var(ddof=1) / len(head) + tail.var(ddof=1) / len(tail))
        t = float(diff / se) if se > 0 else float(np.copysign(np.inf, diff)) if diff else 0.0
    m = max(1, round(END_SHARE * n))
    kept = []
    for end in (slice(0, m), slice(n - m, n)):
        rest = np.ones(n, dtype=bool)
        rest[end] = False
        # each piece's best cosine with the rest of the source (none for a one-piece source)
        other = (
            np.clip((source[end] @ source[rest].T).astype(np.float64), 0.0, 1.0).max(axis=1)
            if rest.any()
            else np.zeros(len(best[end]))
        )
        kept += [float(best[end].mean()), _new_recall(best[end], other)]
    return (float(best.mean()), float(head.mean()), float(tail.mean()), t, *kept)


def _checks(outputs: list[np.ndarray], sources: list[np.ndarray]) -> pd.DataFrame:
    rows = [_recall(s, o) for o, s in zip(outputs, sources)]
    columns = ["recall", "recall_head", "recall_tail", "head_over_tail_t"]
    frame = pd.DataFrame(rows, columns=columns + ["recall_start", "new_start", "recall_end", "new_end"])
    kept = {
        end: RECALL_SHARE * frame[f"recall_{end}"] + (1 - RECALL_SHARE) * frame[f"new_{end}"]
        for end in ("start", "end")
    }
    frame.insert(0, "meaning_kept", np.minimum(kept["start"], kept["end"]))
    low = frame["recall"] < FLAG_BELOW
    cut = ((frame["recall_head"] - frame["recall_tail"]) > CUT_SHORT) & (frame["head_over_tail_t"] > CUT_SHORT_T)
    frame["low_recall"], frame["cut_short"], frame["flagged"] = low, cut, low | cut
    return frame


def meaning_checks(outputs: Sequence[str], sources: Sequence[str], device: str = "cpu") -> pd.DataFrame:
    """Per output: ``meaning_kept`` (what it keeps of the source's worse-kept end: per end
    ``RECALL_SHARE`` of its recall plus the rest of its new recall, the lower of the two; in
    [0, 1], higher = more kept), ``recall`` of the whole source, ``recall_head`` and
    ``recall_tail`` (of the first and the second half of the source's content word pieces),
    ``head_over_tail_t`` (their difference in standard errors), ``recall_start`` and
    ``recall_end`` (of the source's first and last ``END_SHARE`` of content word pieces),
    ``new_start`` and ``new_end`` (each end's new recall: how far the output's matches go
    beyond what the rest of the source already offers, relative to the end's novelty),
    ``low_recall``, ``cut_short`` and ``flagged`` (either).

    Each value is a function of the output and its source alone. A source without a
    content word gets ``NaN`` recall and is not flagged; an output without a word
    (:func:`arts_metric.text.wordless.has_word`) keeps nothing (recall 0).

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
    source's worse-kept end, in [0, 1], higher = more kept; see :func:`meaning_checks`) and ``meaning_flagged`` (how many outputs are
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
