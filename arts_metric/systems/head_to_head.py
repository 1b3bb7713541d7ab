"""The head-to-head view: the ARTS procedure applied to systems.

For every input, every two entries' outputs play one "which text is harder?"
match, judged by the comparison's judge:

- a judge with a close-pair method (the learned judge's ``compare_close``)
  judges with it, because two systems' outputs of one input are usually
  near-paraphrases, where the difference of two pointwise scores is mostly noise;
- any other judge answers ``compare`` (an LLM judge: one request per match,
  two with ``both_orders``; cached, and bounded by its ``max_requests`` /
  ``max_cost`` options).

Identical outputs draw (0.5) without asking the judge. An output without a
word (:mod:`arts_metric.text.wordless`: punctuation, digits or symbols only, or a
letter alone) is judged harder than any output with words and draws with
another output without a word, also without asking the judge: it sits at the
hardest end, as in the pool view. Each distinct pair of
texts is asked once, and which system's output comes first alternates over
the inputs, so a judge's position bias favours no system. A match without a
usable answer (invalid, or unanswered: failed or over budget) is left out and
counted, never replaced by a coin flip. Ratings are Bradley-Terry on the Elo
scale (:func:`arts_metric.ratings.bradley_terry.fit_bradley_terry`, mean 1200, higher = harder).
Outputs play whole: unlike the pool view, which cuts long texts into sentence
units, a text longer than the judge reads is cut by the judge (with its warning).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from arts_metric.judges.base import Judge, is_unanswered
from arts_metric.ratings.bradley_terry import DEFAULT_PRIOR_SD, fit_bradley_terry
from arts_metric.ratings.elo import START_RATING
from arts_metric.systems.inputs import Entries
from arts_metric.text.wordless import has_word


@dataclass
class Matches:
    """Every head-to-head decision.

    Attributes
    ----------
    prob : ``(n_inputs, n_entries, n_entries)``; ``prob[i, a, b]`` = P(entry ``a``'s
        output for input ``i`` is harder than entry ``b``'s), ``1 - prob[i, b, a]``;
        NaN where the match has no usable answer and on the diagonal.
    info : counts: ``matches``, ``identical`` (drawn without asking), ``wordless``
        (settled without asking: an output without a word is the harder one),
        ``asked`` (distinct text pairs sent to the judge), ``decided``, ``invalid``,
        ``unanswered``, ``method`` (``compare_close`` or ``compare``).
    """

    prob: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)

    def wins(self) -> np.ndarray:
        """``(n_inputs, n, n)`` soft wins per input (0 where no decision): the
        Bradley-Terry input, resampled by weighting inputs."""
        return np.nan_to_num(self.prob, nan=0.0)

    def win_rates(self) -> np.ndarray:
        """``(n, n)``: share of decided matches in which the row entry's output was
        judged harder than the column entry's (NaN on the diagonal / without decisions)."""
        w = self.wins().sum(axis=0)
        games = (~np.isnan(self.prob)).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(games > 0, w / games, np.nan)

    def overall_win_rate(self) -> np.ndarray:
        """``(n,)``: share of each entry's decided matches (all opponents) it won, i.e.
        in which its output was judged **harder**."""
        w = self.wins().sum(axis=(0, 2))
        games = (~np.isnan(self.prob)).sum(axis=(0, 2))
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(games > 0, w / games, np.nan)


def play_matches(entries: Entries, judge: Judge) -> Matches:
    """Every pair of entries plays one match per input (see the module docstring)."""
    n, k = entries.n_inputs, len(entries.names)
    prob = np.full((n, k, k), np.nan)
    index: dict[frozenset, int] = {}  # distinct text pair -> position in `asked`
    asked: list[tuple[str, str]] = []
    uses: list[list[tuple[int, int, int, bool]]] = []  # per asked pair: (input, a, b, a's text first)
    identical = wordless = 0
    worded = [[has_word(t) for t in texts] for texts in entries.outputs]
    pair_no = 0
    for a in range(k):
        for b in range(a + 1, k):
            for i in range(n):
                ta, tb = entries.outputs[a][i], entries.outputs[b][i]
                if ta == tb:
                    prob[i, a, b] = prob[i, b, a] = 0.5
                    identical += 1
                    continue
                if not (worded[a][i] and worded[b][i]):  # the output without a word is the harder one
                    prob[i, a, b] = 0.5 if worded[a][i] == worded[b][i] else float(worded[b][i])
                    prob[i, b, a] = 1.0 - prob[i, a, b]
                    wordless += 1
                    continue
                key = frozenset((ta, tb))
                j = index.get(key)
                if j is None:
                    j = index[key] = len(asked)
                    asked.append((ta, tb) if (i + pair_no) % 2 == 0 else (tb, ta))
                    uses.append([])
                uses[j].append((i, a, b, asked[j][0] == ta))
            pair_no += 1
    close = getattr(judge, "compare_close", None)
    method = "compare_close" if callable(close) else "compare"
    decisions = (close if callable(close) else judge.compare)(asked) if asked else []
    if len(decisions) != len(asked):
        raise RuntimeError(f"judge {judge.name} answered {len(decisions)} of {len(asked)} pairs")
    invalid = unanswered = decided = 0
    for used, d in zip(uses, decisions):
        if is_unanswered(d):
            unanswered += len(used)
            continue
        if d is None or np.isnan(float(d)):
            invalid += len(used)
            continue
        decided += len(used)
        for i, a, b, a_first in used:
            p = float(d) if a_first else 1.0 - float(d)
            prob[i, a, b], prob[i, b, a] = p, 1.0 - p
    matches = n * k * (k - 1) // 2
    info = {
        "matches": matches,
        "identical": identical,
        "wordless": wordless,
        "asked": len(asked),
        "decided": decided + identical + wordless,
        "invalid": invalid,
        "unanswered": unanswered,
        "method": method,
    }
    return Matches(prob=prob, info=info)


def rate(
    matches: Matches,
    counts: np.ndarray | None = None,
    prior_sd: float = DEFAULT_PRIOR_SD,
    anchor: float = START_RATING,
) -> np.ndarray:
    """Bradley-Terry ratings (Elo points, mean ``anchor``, higher = harder) from the
    matches: ``(n,)`` from all inputs, or ``(n_resamples, n)`` with inputs weighted by
    bootstrap ``counts`` ``(n_resamples, n_inputs)``."""
    wins = matches.wins()
    if counts is None:
        return fit_bradley_terry(wins.sum(axis=0), prior_sd=prior_sd, anchor=anchor)[0]
    return fit_bradley_terry(np.einsum("ri,iab->rab", counts, wins), prior_sd=prior_sd, anchor=anchor)[0]
