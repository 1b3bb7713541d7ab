"""Settings made ready to score texts, once.

A :class:`Scorer` holds the :class:`~arts_metric.scoring.config.ScoringConfig` (settings
only), the judge and the reference pool built from it or given built, and the
placement method's function with its options, resolved once and checked in a
dry run before any judge request. :func:`arts_metric.scoring.units.place_texts` places
texts with it; the scoring functions prepare one per call
(:func:`split_settings` takes a judge or pool given built out of the settings at
their edge), and a caller that scores many batches (the CLI) reuses the judge
and pool it built.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from arts_metric.judges import Judge, PointwiseJudge
from arts_metric.placement import Placer, default_method, placer
from arts_metric.pool import Pool
from arts_metric.scoring.config import BUILT_FORMS, ScoringConfig
from arts_metric.scoring.signature import arts_signature

#: Placement methods that first ask calibration pairs among pool texts (the same pairs for every text).
CALIBRATING = ("adaptive", "mle")


def split_settings(
    settings: Mapping[str, Any], base: ScoringConfig | None = None
) -> tuple[ScoringConfig, dict[str, Any]]:
    """The scoring functions' edge: ``settings`` applied over ``base`` as a
    :class:`ScoringConfig`, and apart from it a judge or pool given built (a
    :class:`Judge` as ``judge``, a :class:`Pool` as ``pool``), by name, for
    :meth:`Scorer.prepare` to use as they are."""
    built = {name: settings[name] for name, form in BUILT_FORMS.items() if isinstance(settings.get(name), form)}
    config = ScoringConfig.from_settings({k: v for k, v in settings.items() if k not in built}, base=base)
    return config, built


def resolve_placement(judge: Judge, config: ScoringConfig) -> tuple[str, dict[str, Any]]:
    """The placement method and its options: ``config.placement`` (or a ``method`` among
    the options), else ``"exhaustive"`` for a pointwise judge and ``"adaptive"`` for
    any other."""
    options = dict(config.placement_options)
    method = config.placement or options.pop("method", None)
    options.pop("method", None)
    return method or default_method(judge), options


def checked_placer(method: str, options: Mapping[str, Any]) -> Placer:
    """The function of placement ``method``, its ``options`` checked before any request:
    it places one stand-in text against a three-text ruler with them, judged by a
    simulated judge, so every option value meets the method's own checks
    (``ValueError`` naming it) and no real judge is asked anything."""
    from arts_metric.judges.simulated import SimulatedJudge
    from arts_metric.placement import method_options
    from arts_metric.pool import pool_from_rows

    run = placer(method, options)
    options = dict(options)
    if "progress" in method_options(method):
        options["progress"] = False  # no bar for the dry run
    ruler = [f"ruler:{i}" for i in range(3)]
    pool = pool_from_rows([{"text": t, "elo": 1100.0 + 100.0 * i} for i, t in enumerate(ruler)], name="dry-run")
    stand_in = SimulatedJudge(ruler + ["newcomer"], [0.0, 1.0, 2.0, 1.5], accuracy=1.0, name="dry-run")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run(stand_in, pool, ["newcomer"], **options)
    return run


@dataclass(frozen=True)
class Scorer:
    """A judge, a pool and a resolved placement, ready to place texts
    (:func:`arts_metric.scoring.units.place_texts`). Build it with :meth:`prepare`.

    ``method`` names the placement and ``placer`` is its function, called as
    ``placer(judge, pool, texts, **options)``."""

    config: ScoringConfig
    judge: Judge
    pool: Pool
    method: str
    placer: Placer
    options: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def prepare(
        cls, config: ScoringConfig | None = None, judge: Judge | None = None, pool: Pool | None = None
    ) -> Scorer:
        """Build what ``config`` names (default: every default), in the order that keeps a
        bad setting from costing a request: the judge (no request), the placement
        options checked in a dry run, then the pool (an unrated pool of one's own is
        rated by the judge: the first requests). ``judge`` and ``pool``, when given,
        are used as they are, in place of ``config.judge`` and ``config.pool``."""
        config = config or ScoringConfig()
        judge = judge if judge is not None else config.make_judge()
        method, options = resolve_placement(judge, config)
        run = checked_placer(method, options)
        pool = pool if pool is not None else config.make_pool(judge)
        return cls(config=config, judge=judge, pool=pool, method=method, placer=run, options=options)

    def ask_calibration(self) -> None:
        """Ask now, once, the calibration pairs that the placement asks before placing any
        text (the same pool-text pairs for every text; ``adaptive`` and ``mle`` with a judge
        that is not pointwise). With a judge cache, worker processes that place texts
        afterwards read these answers instead of each paying for them at the same moment."""
        if not isinstance(self.judge, PointwiseJudge) and self.method in CALIBRATING:
            self.placer(self.judge, self.pool, [], **self.options)

    @property
    def signature(self) -> str:
        """Every setting that can change a score (:mod:`arts_metric.scoring.signature`)."""
        return arts_signature(self.config, self.judge, self.pool, self.method, dict(self.options))
