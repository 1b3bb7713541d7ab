"""Ranking simplification systems: leaderboards of system outputs with 95%
intervals and paired significance tests.

:func:`compare_systems` takes every system's outputs over the same inputs and
gives two views: the **pool view** (every output placed in the reference
pool as ``compute()`` does; per system the mean ARTS, ARTS delta and formulas,
with bootstrap intervals over inputs and a paired test for every pair) and
the **head-to-head view** (per input, the systems' outputs play pairwise
"which text is harder?" matches; Bradley-Terry ratings on the Elo scale with
bootstrap intervals, and the win-rate matrix). Higher ARTS, rating and win
rate = harder. CLI: ``arts compare``.

| module | its one job |
| --- | --- |
| :mod:`~arts_metric.systems.api` | :func:`compare_systems`: run the views, assemble the tables |
| :mod:`~arts_metric.systems.inputs` | check and align outputs, sources, references, human scores |
| :mod:`~arts_metric.systems.pool_view` | place every output in the pool (``score_texts``) |
| :mod:`~arts_metric.systems.head_to_head` | play and rate the systems' matches |
| :mod:`~arts_metric.systems.resampling` | paired bootstrap over inputs, randomization test |
| :mod:`~arts_metric.systems.human` | correlations with human scores (system and segment level) |
| :mod:`~arts_metric.systems.ranks` | shared ranks and the simplicity rating (higher = simpler) |
| :mod:`~arts_metric.systems.meaning` | meaning kept: source recall of the worse-kept end (the first or last 40% of the source), each end counting what the rest of the source does not already say (BERTScore-style, MiniLM token states), flags for low recall and cut-short outputs |
| :mod:`~arts_metric.systems.result` | :class:`SystemComparison` and writing it to a folder |
| :mod:`~arts_metric.systems.figure` | the leaderboard figure |
"""

from arts_metric.systems.api import VIEWS, compare_systems
from arts_metric.systems.figure import plot_comparison
from arts_metric.systems.result import SystemComparison

__all__ = ["VIEWS", "SystemComparison", "compare_systems", "plot_comparison"]
