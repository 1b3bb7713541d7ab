"""The CEFR scale (Common European Framework of Reference for Languages), defined once.

Levels from A1 (beginner, easiest texts) to C2 (mastery, hardest); their
numeric form is the position 1..6 (higher = harder), as README++ uses it.
"""

from __future__ import annotations

CEFR_LEVELS: tuple[str, ...] = ("A1", "A2", "B1", "B2", "C1", "C2")


def cefr_number(level: str) -> int:
    """``"A1"`` -> 1 ... ``"C2"`` -> 6 (case-insensitive); ``ValueError`` for anything else."""
    key = str(level).strip().upper()
    if key not in CEFR_LEVELS:
        raise ValueError(f"CEFR level {level!r} is not one of {', '.join(CEFR_LEVELS)}")
    return CEFR_LEVELS.index(key) + 1
