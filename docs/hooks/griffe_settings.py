"""Griffe extension for the API reference: a settings dataclass lists its fields.

:class:`arts_metric.scoring.config.ScoringConfig` declares each setting once, with
``_setting(default, constraint, type, help)``: the default, the type shown to users
and the meaning live in the field's metadata, not in the class docstring. For a class
whose fields are declared that way, this extension appends a numpydoc ``Parameters``
section made from the fields (``name : type, default X`` and the meaning), so that the
reference lists every setting with its default, type and meaning.
"""

from __future__ import annotations

import dataclasses
import html
import importlib
import sys
from pathlib import Path
from typing import Any

import griffe

ROOT = Path(__file__).resolve().parents[2]
#: The function a settings dataclass declares its fields with.
DECLARED_BY = "_setting"


def declares_settings(cls: griffe.Class) -> bool:
    """True for a class with at least one field declared by :data:`DECLARED_BY`."""
    return any(
        isinstance(member.value, griffe.ExprCall) and str(member.value.function) == DECLARED_BY
        for member in cls.members.values()
        if not member.is_alias and member.is_attribute
    )


def settings_section(runtime_cls: type) -> str:
    """The numpydoc ``Parameters`` section of a settings dataclass, from its fields' metadata."""
    lines = ["Parameters", "----------"]
    for f in dataclasses.fields(runtime_cls):
        if "help" not in f.metadata or "type" not in f.metadata:
            raise ValueError(f"{runtime_cls.__name__}.{f.name} is not declared with {DECLARED_BY}(...)")
        default = list(f.default) if isinstance(f.default, tuple) else f.default
        lines.append(f"{f.name} : {f.metadata['type']}, default {default!r}")
        help_text = html.escape(f.metadata["help"], quote=False)  # "openai:<model>" is not a tag
        lines.append(f"    {help_text[0].upper()}{help_text[1:]}.")
    return "\n".join(lines)


class SettingsParameters(griffe.Extension):
    """Append :func:`settings_section` to the docstring of every class that :func:`declares_settings`."""

    def on_class_members(self, *, node: Any, cls: griffe.Class, agent: Any, **kwargs: Any) -> None:
        if not declares_settings(cls):
            return
        if str(ROOT) not in sys.path:
            sys.path.insert(0, str(ROOT))
        runtime_cls = getattr(importlib.import_module(cls.module.path), cls.name)
        section = settings_section(runtime_cls)
        if cls.docstring is None:
            cls.docstring = griffe.Docstring(section, parent=cls)
        else:
            cls.docstring.value = cls.docstring.value.rstrip() + "\n\n" + section
