"""Griffe extension for the API reference: every docstring of the package is numpydoc.

Griffe's numpy parser reads a Google-style section (``Args:``, ``Attributes:``,
``Returns:`` ...) as plain text, so the reference would show it as one run-on
paragraph; and it reads a combined entry ``a, b : type`` as two parameters that share
one type and one description. Neither makes griffe warn. This extension warns on
both, naming the file, line and object, through griffe's logger, which mkdocstrings
hands to MkDocs: ``mkdocs build --strict`` then fails. ``problems()`` is the check
itself (``tests/test_docs.py`` runs it over the whole package).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

#: A Google-style section header: a known title and a colon, alone on its line.
GOOGLE_SECTION = re.compile(
    r"^[ \t]*(Args|Arguments|Attributes|Example|Examples|Keyword Args|Keyword Arguments|Methods|Note|Notes|"
    r"Other Parameters|Parameters|Raises|References|Return|Returns|See Also|Todo|Warning|Warnings|Warns|"
    r"Yield|Yields):[ \t]*$",
    re.M,
)
#: A numpydoc section header: its title, then a line of dashes.
NUMPY_SECTION = re.compile(r"^[ \t]*(\w[\w ]*)\n[ \t]*-{3,}[ \t]*$", re.M)
#: Sections whose entries name one item each.
ITEM_SECTIONS = {"Parameters", "Other Parameters", "Attributes", "Returns", "Yields", "Receives", "Raises", "Warns"}
#: An entry naming several items: ``a, b`` or ``a, *b : ...``.
COMBINED = re.compile(r"^(?P<names>\*{0,2}\w+(?:[ \t]*,[ \t]*\*{0,2}\w+)+)[ \t]*(?::|$)")


def problems(docstring: str) -> list[tuple[int, str]]:
    """What keeps ``docstring`` from being read as numpydoc: ``(line, message)`` pairs,
    lines counted from 0 within the docstring; none for a clean docstring."""
    found = []
    for match in GOOGLE_SECTION.finditer(docstring):
        line = docstring.count("\n", 0, match.start())
        found.append((line, f"Google-style section {match.group(1) + ':'!r}: write it as numpydoc (title, dashes)"))
    headers = list(NUMPY_SECTION.finditer(docstring))
    for i, header in enumerate(headers):
        if header.group(1).strip() not in ITEM_SECTIONS:
            continue
        end = headers[i + 1].start() if i + 1 < len(headers) else len(docstring)
        body = docstring[header.end() : end].split("\n")
        indents = [len(line) - len(line.lstrip()) for line in body if line.strip()]
        first = docstring.count("\n", 0, header.end()) + 1
        for offset, line in enumerate(body[1:] if body and not body[0].strip() else body):
            if line.strip() and len(line) - len(line.lstrip()) == min(indents):
                match = COMBINED.match(line.strip())
                if match:
                    found.append(
                        (
                            first + offset,
                            f"{header.group(1)} entry {match.group('names')!r} names several items: "
                            "give each its own entry",
                        )
                    )
    return sorted(found)


class NumpyStyle(griffe.Extension):
    """Warn, through griffe's logger, on each of :func:`problems` in every docstring griffe loads."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        for line, message in problems(obj.docstring.value):
            where = f"{obj.relative_filepath}:{(obj.docstring.lineno or 0) + line}"
            griffe.logger.warning(f"{where}: {obj.path}: {message}")
