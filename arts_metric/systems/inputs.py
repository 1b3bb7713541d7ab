"""Checking what a system comparison is handed: systems' outputs, sources,
reference sets and human scores, all aligned over the same inputs.

Every problem raises ``ValueError`` naming the system (and the input index)
at fault. The result is a :class:`Entries`: the names in the order given
(systems first, then reference sets), their outputs, what kind each is, and
the human scores where given.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from arts_metric.text.checks import check_texts


@dataclass(frozen=True)
class Entries:
    """Checked inputs of a comparison.

    Attributes
    ----------
    names : every entry's name: the systems in the order given, then the reference sets.
    outputs : ``outputs[k][i]`` is entry ``k``'s text for input ``i``.
    kinds : ``"system"`` or ``"reference"`` per entry.
    sources : the inputs before simplification (or None).
    human : per entry, its human scores ``(n,)`` or None where none were given.
    """

    names: tuple[str, ...]
    outputs: tuple[tuple[str, ...], ...]
    kinds: tuple[str, ...]
    sources: tuple[str, ...] | None
    human: tuple[np.ndarray | None, ...]

    @property
    def n_inputs(self) -> int:
        return len(self.outputs[0])

    @property
    def has_human(self) -> bool:
        return any(h is not None for h in self.human)


def _named_texts(value: Any, what: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise ValueError(f"{what} must map a system name to its list of outputs, got {type(value).__name__}")
    if not value:
        raise ValueError(f"{what} is empty: give at least one system")
    for name in value:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{what}: system names must be non-empty strings, got {name!r}")
    return dict(value)


def _reference_sets(references: Any) -> dict[str, Any]:
    """``references`` as ``{name: texts}``: one list of texts is ``reference``; a list of
    lists is ``reference-1``, ``reference-2``, ...; a mapping keeps its names."""
    if references is None:
        return {}
    if isinstance(references, Mapping):
        return _named_texts(references, "references")
    if isinstance(references, str) or not isinstance(references, Sequence):
        raise ValueError(
            f"references must be a list of texts, a list of such lists or a dict of them, got {type(references).__name__}"
        )
    if references and all(isinstance(r, str) for r in references):
        return {"reference": references}
    if not references:
        raise ValueError("references is empty: give None or at least one reference set")
    return {f"reference-{k + 1}": r for k, r in enumerate(references)}


def _human_values(values: Any, name: str, n: int) -> np.ndarray:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise ValueError(f"human_scores[{name!r}] must be a list of numbers, got {type(values).__name__}")
    values = list(values)
    if len(values) != n:
        raise ValueError(f"human_scores[{name!r}] has {len(values)} scores but the system has {n} outputs")
    out = np.empty(n)
    for i, v in enumerate(values):
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float, np.integer, np.floating))
            or not math.isfinite(float(v))
        ):
            raise ValueError(f"human_scores[{name!r}][{i}] is not a finite number: {v!r}")
        out[i] = float(v)
    return out


def check_entries(
    outputs: Mapping[str, Sequence[str]],
    sources: Sequence[str] | None = None,
    references: Any = None,
    human_scores: Mapping[str, Sequence[float]] | None = None,
) -> Entries:
    """Check and align the inputs of :func:`arts_metric.systems.compare_systems`.

    Every system and reference set must have one output per input (an output
    may equal its source: a "copy" baseline); texts must be non-empty strings
    (the rule of ``compute``). ``human_scores`` maps names to one score per
    output; every system needs them once any are given, reference sets may
    lack them.
    """
    systems = _named_texts(outputs, "outputs")
    refs = _reference_sets(references)
    clash = sorted(set(systems) & set(refs))
    if clash:
        raise ValueError(f"reference set name(s) {', '.join(map(repr, clash))} are also system names; rename one")
    entries = {**systems, **refs}
    texts = {name: check_texts(value, f"outputs[{name!r}]") for name, value in entries.items()}
    src = None if sources is None else check_texts(sources, "sources")
    counts = {name: len(t) for name, t in texts.items()}
    expected = len(src) if src is not None else max(counts.values())
    wrong = {name: c for name, c in counts.items() if c != expected}
    if wrong:
        listed = ", ".join(f"{name!r} has {c}" for name, c in sorted(wrong.items()))
        basis = f"sources has {expected}" if src is not None else f"the most is {expected}"
        raise ValueError(f"systems must have one output per input; {listed} ({basis})")
    human: dict[str, np.ndarray] = {}
    if human_scores is not None:
        if not isinstance(human_scores, Mapping):
            raise ValueError(
                f"human_scores must map system names to lists of scores, got {type(human_scores).__name__}"
            )
        unknown = sorted(set(human_scores) - set(entries))
        if unknown:
            raise ValueError(f"human_scores names unknown system(s) {', '.join(map(repr, unknown))}")
        missing = [name for name in systems if name not in human_scores]
        if missing:
            raise ValueError(f"human_scores lacks system(s) {', '.join(map(repr, missing))}")
        human = {name: _human_values(v, name, expected) for name, v in human_scores.items()}
    names = tuple(entries)
    return Entries(
        names=names,
        outputs=tuple(tuple(texts[name]) for name in names),
        kinds=tuple("system" if name in systems else "reference" for name in names),
        sources=None if src is None else tuple(src),
        human=tuple(human.get(name) for name in names),
    )
