"""Placing new texts in a frozen reference pool: the package of the placement methods.

The pool is a ruler: its ratings never move, only newcomers are rated. A
newcomer's ARTS score is the share of pool texts rated lower (easier) than it,
in [0, 1], higher = harder. Four methods, chosen with ``place(method=...)``:

- ``exhaustive``: for a :class:`PointwiseJudge` (the learned judge) the newcomer
  "plays" every pool text with the soft outcome ``P(newcomer harder)`` at no
  pairwise cost; for any other judge it really plays every pool text
  (N calls per text: the reference the cheaper methods are measured against).
- ``elo``: paper-faithful. The newcomer starts at 1200 and plays ``budget``
  matches against pool opponents (random or scheduled) with K = 16, pool frozen.
- ``mle``: Bradley-Terry maximum likelihood of the newcomer's rating given its
  results against opponents of known rating; order independent.
- ``adaptive`` (default for pairwise judges): each next opponent is the one
  whose result is most informative under a posterior over the newcomer's
  position in the pool; stops when the score's interval is narrow enough or
  the per-text ``budget`` is spent. A local judge gets one ``judge.compare``
  call per round (one decision of every still-active newcomer); a remote
  judge gets every pair as soon as it is chosen, so each newcomer goes on as
  its own answers arrive and a slow request holds up no other text.

Every method fills ``ratings`` (Elo scale of the pool), an ``interval`` per
text (posterior, bootstrap or likelihood based, see each method), ARTS-scale
quantiles for :func:`system_interval`, ``judge_calls`` and ``calls_per_text``.
Units: ratings and ``se`` are Elo points of the pool; ``arts`` values and
``target_width`` are shares of the pool (ARTS units).

A text's placement depends on the text, the pool, the judge and its
settings, the placement settings and ``seed`` only, never on the other texts
placed with it, their order, the batch size or the process: every draw comes
from the text's own random stream (:mod:`~arts_metric.placement.streams`),
every fit is made row by row, and what a method learns about the judge
(``adaptive``'s judge model, ``mle``'s slope) is calibrated on a fixed set of
pool texts (:func:`calibration_texts`), not on the batch.

Unusable answers are judgments (``invalid``, a text without a usable one gets
NaN); a decision for which no answer was obtained
(:data:`~arts_metric.judges.base.UNANSWERED`: a failure after retries, a
budget that did not allow it) is counted in ``failed`` and leaves its text
``incomplete`` (NaN), never scored from fewer answers than a complete run uses.

Nothing here persists decisions itself: judges that cost money cache them
(e.g. in SQLite), and every method is deterministic given ``seed`` and the
judge's answers, so a rerun after an interruption asks the same pairs again,
gets them from the judge's cache and completes the incomplete texts.

Layout (this package re-exports the public names of its modules):

- :mod:`~arts_metric.placement.api`: :func:`place` and the method registry;
- :mod:`~arts_metric.placement.result`: :class:`PlacementResult` and the argument checks;
- :mod:`~arts_metric.placement.streams`: each text's own random stream and sides;
- :mod:`~arts_metric.placement.opponents`: which pool texts a newcomer plays, and
  which calibrate the judge;
- :mod:`~arts_metric.placement.asker`: asking the judge about those pairs;
- one module per method: :mod:`~arts_metric.placement.exhaustive`,
  :mod:`~arts_metric.placement.elo_method`, :mod:`~arts_metric.placement.mle`,
  :mod:`~arts_metric.placement.adaptive`;
- :mod:`~arts_metric.placement.interval`: :func:`system_interval`.

The rating maths (Elo update, Bradley-Terry fit, priors, conversions between
ratings and shares of the pool) lives in :mod:`arts_metric.ratings.elo`.
"""

from __future__ import annotations

from arts_metric.placement.adaptive import place_adaptive
from arts_metric.placement.api import METHODS, Placer, default_method, method_defaults, method_options, place, placer
from arts_metric.placement.asker import pool_judge_scores, pool_judge_scores_status
from arts_metric.placement.elo_method import place_elo
from arts_metric.placement.exhaustive import place_exhaustive, place_pointwise
from arts_metric.placement.interval import system_interval
from arts_metric.placement.mle import place_mle, place_pairwise
from arts_metric.placement.opponents import calibration_texts, spread_opponents
from arts_metric.placement.result import (
    DEFAULT_LEVEL,
    QUANTILE_LEVELS,
    PlacementResult,
    default_budget,
    rating_of_arts,
)
from arts_metric.ratings.bradley_terry import DEFAULT_PRIOR_SD, mle_rating

__all__ = [
    "DEFAULT_LEVEL",
    "DEFAULT_PRIOR_SD",
    "METHODS",
    "QUANTILE_LEVELS",
    "PlacementResult",
    "Placer",
    "calibration_texts",
    "default_budget",
    "default_method",
    "method_defaults",
    "method_options",
    "mle_rating",
    "place",
    "place_adaptive",
    "place_elo",
    "place_exhaustive",
    "place_mle",
    "place_pairwise",
    "place_pointwise",
    "placer",
    "pool_judge_scores",
    "pool_judge_scores_status",
    "rating_of_arts",
    "spread_opponents",
    "system_interval",
]
