"""Which way is harder: the one vocabulary for the direction of a score.

ARTS scores and most formulas are higher = harder; FRE and C-Scores are higher =
easier, and human ratings may run either way. A direction is ``"harder"`` or
``"simpler"``; ``"easier"`` is accepted everywhere as the same as ``"simpler"``.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

#: What a ``*_higher_is`` argument accepts.
Direction = Literal["harder", "simpler", "easier"]
DIRECTIONS: tuple[str, ...] = ("harder", "simpler", "easier")


def check_direction(value: object, name: str = "human_higher_is") -> Literal["harder", "simpler"]:
    """``"harder"`` or ``"simpler"`` (for ``"easier"`` too); a clear error naming ``name`` otherwise."""
    if value == "harder":
        return "harder"
    if value in ("simpler", "easier"):
        return "simpler"
    raise ValueError(f"{name} must be 'harder' or 'simpler' (alias 'easier'), got {value!r:.60}")


def sign(value: object, name: str = "higher_is") -> float:
    """+1 for a score that is higher = harder, -1 for higher = simpler."""
    return 1.0 if check_direction(value, name) == "harder" else -1.0


def harder_up(values: np.ndarray, higher_is: object, name: str = "higher_is") -> np.ndarray:
    """``values`` turned so that higher = harder."""
    return values * sign(higher_is, name)
