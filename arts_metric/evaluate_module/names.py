"""The name of ARTS's optional ``sources`` input, as ``evaluate.combine`` looks it up.

``evaluate.combine([...]).add()`` and ``.add_batch()`` hand each module every input
the module declares, looked up by name among the arguments the user gave, and
rename only ``prediction`` and ``reference`` to their plurals. A combination that
includes ARTS therefore needs ``sources=`` by that name (``None`` when there are
no sources); ``source=`` or leaving it out fails inside ``evaluate`` with a
``KeyError``. Python shows a missing key by its ``repr``, so the name ARTS declares
carries the fix in its ``repr``; everywhere else it is the string ``"sources"``
(equal to it, with the same hash and the same ``str``).
"""

from __future__ import annotations

#: What the KeyError says after the missing name.
COMBINE_HINT = (
    "ARTS's optional input, by this name: inside evaluate.combine, add() and add_batch() pass each module "
    "every input it declares and rename only prediction= and reference=; give sources=... "
    "(sources=None without sources), e.g. add(prediction=..., reference=..., sources=...)"
)


class _Sources(str):
    """``"sources"``, with :data:`COMBINE_HINT` in its ``repr``."""

    def __repr__(self) -> str:
        return f"{str.__repr__(self)} ({COMBINE_HINT})"


#: ``sources`` as ARTS declares it to ``evaluate`` (see the module docstring).
SOURCES = _Sources("sources")
