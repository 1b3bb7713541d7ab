"""Griffe extension for the API reference: a parameter line ``name : what it is`` whose
right-hand side is prose, not a type, is read as the parameter's description.

The package's numpydoc docstrings often describe a parameter on its own line
(``predictions : the texts to score (e.g. system outputs).``); numpydoc would take that
prose for the type, and the reference would show the description in the type column.
The types shown come from the signatures' annotations instead. Sphinx roles
(``:class:`~arts_metric.scoring.config.ScoringConfig` ``) become code (``ScoringConfig``).
"""

from __future__ import annotations

import re
from typing import Any

import griffe

PARAMETER = re.compile(r"^(?P<indent>[ \t]*)(?P<names>\*{0,2}\w+(?:, \*{0,2}\w+)*) : (?P<rest>.+)$")
SECTION = re.compile(r"^[ \t]*(Parameters|Other Parameters)\n[ \t]*-+\n", re.M)
NEXT_SECTION = re.compile(r"^[ \t]*\w[\w ]*\n[ \t]*-+\n", re.M)
ROLE = re.compile(r":(?:class|func|meth|mod|attr|data|exc|obj):`(~?)([\w.]+)`")
TYPE_WORDS = {"or", "of", "optional", "default", "None", "True", "False"}


def is_prose(text: str) -> bool:
    """True for a description (``the texts to score.``), False for a type (``int or None``)."""
    text = text.strip()
    if text.endswith(".") or re.search(r"[;(:`]|\be\.g\b", text):
        return True
    words = [w for w in re.split(r"[\s,|\[\]]+", text) if w and w not in TYPE_WORDS]
    return len(words) > 3 or any(w.islower() and len(w) > 1 and w.isalpha() and w not in _TYPES for w in words)


_TYPES = {"str", "int", "float", "bool", "dict", "list", "tuple", "set", "bytes", "callable", "array", "path"}


def _role(match: re.Match) -> str:
    name = match.group(2).rsplit(".", 1)[-1] if match.group(1) else match.group(2)
    return f"``{name}``"


def rewrite(docstring: str) -> str:
    """The docstring with Sphinx roles as code and every prose-typed parameter line split
    into name and description."""
    docstring = ROLE.sub(_role, docstring)
    start = SECTION.search(docstring)
    if not start:
        return docstring
    end_match = NEXT_SECTION.search(docstring, start.end())
    end = end_match.start() if end_match else len(docstring)
    lines = []
    for line in docstring[start.end() : end].split("\n"):
        match = PARAMETER.match(line)
        if match and is_prose(match.group("rest")):
            indent = match.group("indent")
            lines += [f"{indent}{match.group('names')}", f"{indent}    {match.group('rest')}"]
        else:
            lines.append(line)
    return docstring[: start.end()] + "\n".join(lines) + docstring[end:]


class ProseParameters(griffe.Extension):
    """Apply :func:`rewrite` to every docstring griffe loads."""

    def on_instance(self, *, node: Any, obj: griffe.Object, agent: Any, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = rewrite(obj.docstring.value)
