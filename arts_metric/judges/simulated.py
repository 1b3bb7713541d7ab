"""Simulated judges whose right answer is known (paper section 3.3).

They are real :class:`~arts_metric.judges.base.Judge` subclasses: they receive
text pairs like any judge, look each text up in a table of known true
difficulties (higher = harder) and answer

- :class:`SimulatedJudge`: right with probability ``accuracy`` (the paper's
  oracle is ``accuracy=1``, user u1 ``0.9``, user u2 ``0.75``), independently
  for every decision, so asking the same pair twice may give two answers;
- :class:`MajorityJudge`: the majority vote of several judges, ties broken at
  random (the paper's group of 16 simulated users);
- :class:`SimulatedPointwiseJudge`: a pointwise judge whose latent score is the
  true difficulty plus fixed Gaussian noise (a stand-in for a learned regressor).

They are used by the simulation, the placement benchmark and the tests; they
are deliberately not registered in :func:`arts_metric.judges.get_judge`.
Texts are usually identifiers such as ``"pool:17"`` standing for a text by
its position, so no corpus text is needed.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from arts_metric.judges.base import Decision, Judge, PointwiseJudge


class _TruthTable:
    """Text -> true difficulty lookup shared by the simulated judges."""

    def __init__(self, texts: Sequence[str], truth: Sequence[float]) -> None:
        texts = list(texts)
        values = np.asarray(truth, dtype=float)
        if values.shape != (len(texts),):
            raise ValueError(f"truth has {values.size} values but there are {len(texts)} texts")
        if np.isnan(values).any():
            raise ValueError(f"truth[{int(np.flatnonzero(np.isnan(values))[0])}] is NaN")
        self.index: dict[str, int] = {}
        for i, t in enumerate(texts):
            if t in self.index:
                raise ValueError(f"text {i} ({t!r:.60}) appears twice; simulated texts must be unique")
            self.index[t] = i
        self.values = values

    def lookup(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty(len(texts))
        for k, t in enumerate(texts):
            i = self.index.get(t)
            if i is None:
                raise ValueError(f"simulated judge does not know text {t!r:.60} (item {k})")
            out[k] = self.values[i]
        return out


class SimulatedJudge(Judge):
    """Knows the true difficulty of each text; right with probability ``accuracy``.

    Parameters
    ----------
    texts : Sequence[str]
        The texts it can be asked about (any unique strings).
    truth : Sequence[float]
        Their true difficulty, higher = harder (only the order matters).
    accuracy : float
        Probability of naming the truly harder text (0.5..1). Equal true values
        are decided by a coin flip.
    invalid_rate : float
        Probability of giving no usable answer (``None``).
    seed : int
        Seeds the judge's own random stream.
    name : str or None
        The judge's name (default ``simulated-ACCURACY``).
    """

    def __init__(
        self,
        texts: Sequence[str],
        truth: Sequence[float],
        accuracy: float = 1.0,
        invalid_rate: float = 0.0,
        seed: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if not 0.5 <= accuracy <= 1.0:
            raise ValueError(f"accuracy must be in [0.5, 1], got {accuracy}")
        if not 0.0 <= invalid_rate <= 1.0:
            raise ValueError(f"invalid_rate must be in [0, 1], got {invalid_rate}")
        self.table = _TruthTable(texts, truth)
        self.accuracy = float(accuracy)
        self.invalid_rate = float(invalid_rate)
        self.rng = np.random.default_rng(seed)
        self.name = name or f"simulated-{accuracy:g}"

    def compare_truth(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Decisions (1.0 = first harder) for true values ``a`` vs ``b``; NaN = no answer."""
        n = len(a)
        harder = np.where(a == b, self.rng.random(n) < 0.5, a > b)
        right = self.rng.random(n) < self.accuracy
        out = np.where(right, harder, ~harder).astype(float)
        if self.invalid_rate > 0:
            out[self.rng.random(n) < self.invalid_rate] = np.nan
        return out

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        if not pairs:
            return []
        a = self.table.lookup([p[0] for p in pairs])
        b = self.table.lookup([p[1] for p in pairs])
        out = self.compare_truth(a, b)
        self.stats.calls += len(pairs)
        self.stats.invalid += int(np.isnan(out).sum())
        return [None if np.isnan(x) else float(x) for x in out]


class MajorityJudge(Judge):
    """Majority vote of several judges on every pair; ties broken at random.

    Judges that give no answer abstain; a pair with no vote at all is ``None``.
    Each judge's decision is rounded to a vote (``>= 0.5`` = first harder).
    """

    def __init__(self, judges: Sequence[Judge], seed: int = 0, name: str | None = None) -> None:
        super().__init__()
        if not judges:
            raise ValueError("MajorityJudge needs at least one judge")
        self.judges = list(judges)
        self.rng = np.random.default_rng(seed)
        self.name = name or f"majority-of-{len(self.judges)}"

    def compare(self, pairs: Sequence[tuple[str, str]]) -> list[Decision]:
        if not pairs:
            return []
        votes = np.array([[np.nan if d is None else float(d >= 0.5) for d in j.compare(pairs)] for j in self.judges])
        first = np.nansum(votes, axis=0)
        cast = (~np.isnan(votes)).sum(axis=0)
        second = cast - first
        tie = self.rng.random(len(pairs)) < 0.5
        out = np.where(first > second, 1.0, np.where(first < second, 0.0, tie.astype(float)))
        out[cast == 0] = np.nan
        self.stats.calls += len(pairs)
        self.stats.invalid += int((cast == 0).sum())
        return [None if np.isnan(x) else float(x) for x in out]


class SimulatedPointwiseJudge(PointwiseJudge):
    """Pointwise judge: latent score = true difficulty + fixed Gaussian noise.

    ``noise`` is the standard deviation of each text's error, in the units of
    ``truth``; the error is drawn once per text (a deterministic judge, like a
    regressor). ``prob_harder`` is a logistic curve of the score difference
    with scale ``scale`` (same units).
    """

    def __init__(
        self,
        texts: Sequence[str],
        truth: Sequence[float],
        noise: float = 0.0,
        scale: float = 1.0,
        seed: int = 0,
        name: str | None = None,
    ) -> None:
        super().__init__()
        if noise < 0 or scale <= 0:
            raise ValueError(f"noise must be >= 0 and scale > 0, got noise={noise}, scale={scale}")
        self.table = _TruthTable(texts, truth)
        if noise:  # each text's fixed error, drawn once
            self.table.values = self.table.values + np.random.default_rng(seed).normal(
                0.0, noise, len(self.table.values)
            )
        self.scale = float(scale)
        self.name = name or f"simulated-pointwise-{noise:g}"

    def score(self, texts: Sequence[str]) -> np.ndarray:
        self.stats.calls += len(texts)
        return self.table.lookup(list(texts))

    def prob_harder(self, score_a: np.ndarray, score_b: np.ndarray) -> np.ndarray:
        d = (np.asarray(score_a, dtype=float) - np.asarray(score_b, dtype=float)) / self.scale
        return 0.5 * (1.0 + np.tanh(0.5 * d))  # logistic, overflow-free
