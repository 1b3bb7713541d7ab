"""Option strings to values: the one converter for ``?key=value`` judge specs and
``--rater 'SPEC key=value'`` build options.

An option given as text is converted by the type its receiver declares (a
dataclass field or a keyword parameter), never guessed from the text: a
``persona=1`` stays the string ``"1"``, a ``temperature=0.70`` becomes the
float ``0.7``. Rules, in this order, for each type the annotation allows:

- ``None`` (``X | None``): ``none``, ``null`` or an empty value;
- ``bool``: ``1 true yes on`` / ``0 false no off`` (any case);
- ``int``, ``float``: Python's own ``int()`` / ``float()``;
- ``str``, paths, ``Any``: the text, stripped.

Any other type (a list, a mapping) cannot be written as text: the value must
be given as a Python object. Values that are not strings pass unchanged.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import types
import typing
from typing import Any, Callable, Mapping
from urllib.parse import parse_qsl

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})
NONE_WORDS = frozenset({"none", "null", ""})


def _bool(text: str) -> bool:
    word = text.lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ValueError(text)


# Declared type name -> converter from stripped text.
_CONVERTERS: dict[str, Callable[[str], Any]] = {
    "bool": _bool,
    "int": int,
    "float": float,
    "str": str,
    "Any": str,
    "object": str,
    "Path": str,
    "PathLike": str,
    "os.PathLike": str,
}


def _type_names(annotation: Any) -> list[str]:
    """The member names of a (possibly string, possibly union) annotation: ``"int | None"`` ->
    ``["int", "None"]``; ``Sequence[str]`` -> ``["Sequence"]``."""
    if isinstance(annotation, str):
        return [re.sub(r"\[.*$", "", part.strip()).strip("'\"") for part in annotation.split("|")]
    if annotation is None or annotation is type(None):
        return ["None"]
    if annotation is Any:
        return ["Any"]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [name for arg in typing.get_args(annotation) for name in _type_names(arg)]
    origin = typing.get_origin(annotation) or annotation
    return [getattr(origin, "__name__", str(origin))]


def _describe(names: list[str]) -> str:
    return next((n for n in names if n != "None"), "None")


def convert_option(name: str, annotation: Any, text: str) -> Any:
    """Turn the text of option ``name`` into a value of its declared ``annotation``.

    ``annotation`` is a type, a union (``int | None``) or its string form (what
    ``dataclasses.fields`` and ``inspect.signature`` give under ``from
    __future__ import annotations``). Raises ``ValueError`` naming the option and
    the text when the text is not a valid value of that type.
    """
    names = _type_names(annotation)
    value = text.strip()
    if "None" in names and value.lower() in NONE_WORDS:
        return None
    convertible = [n for n in names if n in _CONVERTERS]
    if not convertible:
        raise ValueError(f"option {name}={text!r}: a {_describe(names)} cannot be given as text; pass it as a value")
    # bool before int before float before str: "1" for ``int | str`` is the number.
    for type_name in sorted(convertible, key=list(_CONVERTERS).index):
        try:
            return _CONVERTERS[type_name](value)
        except ValueError:
            continue
    raise ValueError(f"option {name}={text!r} is not a valid {_describe(names)}")


def option_types(target: Any, exclude: tuple[str, ...] = ()) -> dict[str, Any]:
    """The declared option types of a dataclass (its fields) or of a callable (its
    keyword parameters, ``self`` and ``*args`` / ``**kwargs`` left out), minus ``exclude``."""
    if dataclasses.is_dataclass(target):
        found = {f.name: f.type for f in dataclasses.fields(target)}
    else:
        kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        found = {
            p.name: (Any if p.annotation is inspect.Parameter.empty else p.annotation)
            for p in inspect.signature(target).parameters.values()
            if p.kind in kinds and p.name != "self"
        }
    return {k: v for k, v in found.items() if k not in exclude}


def convert_options(
    values: Mapping[str, Any],
    types_: Mapping[str, Any],
    source: str = "options",
    aliases: Mapping[str, str] | None = None,
    also_known: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Check option names against ``types_`` and convert the string values by their types.

    ``aliases`` maps other spellings to option names (an option given under
    two spellings is an error); ``also_known`` are names the receiver handles
    itself (listed in the error for an unknown name, passed unchanged).
    Raises ``ValueError`` naming ``source``, the option and the valid names.
    """
    aliases = aliases or {}
    out: dict[str, Any] = {}
    for raw_key, value in values.items():
        key = aliases.get(raw_key, raw_key)
        if key not in types_ and key not in also_known:
            known = ", ".join([*sorted(types_), *also_known])
            raise ValueError(f"unknown option {raw_key!r} in {source}; known options: {known}")
        if key in out:
            raise ValueError(f"option {key!r} given twice in {source}")
        convert = isinstance(value, str) and key in types_
        out[key] = convert_option(key, types_[key], value) if convert else value
    return out


def parse_options(text: str, *, sep: str | None = "&", source: str | None = None) -> dict[str, str]:
    """Split option text into ``{name: text}`` (values stay strings; see :func:`convert_option`).

    ``sep="&"`` reads a spec's query, ``key=value&key=value``, percent-decoded
    as in URLs (``+`` is a space); ``sep=None`` reads whitespace-separated
    ``key=value`` tokens literally (a build's ``--rater 'SPEC key=value ...'``).
    A name given twice, or a token without ``=``, raises ``ValueError``.
    """
    where = source if source is not None else text
    options: dict[str, str] = {}
    if sep == "&":
        try:
            pairs = parse_qsl(text, keep_blank_values=True, strict_parsing=True) if text else []
        except ValueError:
            raise ValueError(f"judge options {text!r} are not of the form key=value&key=value") from None
    else:
        pairs = []
        for token in text.split(sep):
            key, eq, value = token.partition("=")
            if not eq or not key:
                raise ValueError(f"expected key=value in {where!r}, got {token!r}")
            pairs.append((key, value))
    for key, value in pairs:
        if key in options:
            raise ValueError(f"judge option {key!r} is given twice in {where!r}")
        options[key] = value
    return options
