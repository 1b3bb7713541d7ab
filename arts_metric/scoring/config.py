"""The scoring settings, declared once: :class:`ScoringConfig`.

``score_texts`` (what ``compute()`` runs), ``bulk.score_dataset``, ``arts
score`` and the ``evaluate`` module all build a :class:`ScoringConfig` and
pass it down; each setting's default, documentation and constraint live here
only (in the manner of scikit-learn's declared parameter constraints: every
field carries its constraint, and an error names the setting and the bad
value). Build one from defaults plus overrides with
``ScoringConfig.from_settings(overrides, base=defaults)`` or
``config.replace(**overrides)``; an unknown setting raises ``ValueError``
listing the valid ones.

A :class:`ScoringConfig` holds settings only: the judge as a spec string and
the pool as a name, a file or rows. A judge or pool built beforehand (a
:class:`~arts_metric.judges.Judge`, a :class:`~arts_metric.pool.Pool`) is given
to the scoring functions (``compute(judge=...)``, ``score_texts``,
``score_dataset``, ``compare_systems``), which hand it to the
:class:`~arts_metric.scoring.scorer.Scorer` as it is.
"""

from __future__ import annotations

import dataclasses
import os
import textwrap
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Union

from arts_metric.data import BUILTIN_POOLS
from arts_metric.judges import Judge, JudgeContext, get_judge
from arts_metric.languages import DEFAULT_LANGUAGE, LANGUAGES, judge_spec, pool_name
from arts_metric.placement import METHODS, method_options
from arts_metric.pool import DEFAULT_POOL, Pool, load_pool
from arts_metric.text.formulas import DEFAULT_FORMULAS, FORMULAS, normalize_formula_name
from arts_metric.text.sentences import DEFAULT_CHUNK_CHARS, DEFAULT_SPLIT_ABOVE

if TYPE_CHECKING:
    import datasets

LONG_TEXTS = ("mean", "team", "chunks", "whole")
#: Former names of ``long_texts`` values: still accepted, with a FutureWarning.
RENAMED_LONG_TEXTS = {"sentences": "team"}

#: What ``pool`` accepts: a built-in pool's name, a file, a ``datasets.Dataset`` or a list of dicts.
PoolSpec = Union[str, os.PathLike, Sequence[Mapping[str, Any]], "datasets.Dataset"]

#: The settings that also have a built form, and that form (kept out of a ScoringConfig).
BUILT_FORMS: dict[str, type] = {"judge": Judge, "pool": Pool}


@dataclass(frozen=True)
class Constraint:
    """What a setting accepts: ``check(value)`` is true for valid values;
    ``description`` completes "NAME must be ..."; ``choices`` lists the valid
    values where they are few (a CLI's ``choices=``)."""

    description: str
    check: Callable[[Any], bool]
    choices: tuple[Any, ...] | None = None


def _one_of(*choices: Any, optional: bool = False) -> Constraint:
    listed = ", ".join(map(repr, choices)) + (" or None" if optional else "")
    return Constraint(f"one of {listed}", lambda v: (optional and v is None) or v in choices, choices)


def _positive_int(unit: str) -> Constraint:
    return Constraint(
        f"a positive integer ({unit})", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1
    )


def _mapping(what: str) -> Constraint:
    return Constraint(
        f"None or a dict of {what} by name",
        lambda v: v is None or (isinstance(v, Mapping) and all(isinstance(k, str) for k in v)),
    )


def _pool_like(v: Any) -> bool:
    if isinstance(v, str):
        return bool(v.strip())
    return isinstance(v, (os.PathLike, Sequence)) or hasattr(v, "to_list")


_POOL = Constraint(
    f"a built-in pool ({', '.join(BUILTIN_POOLS)}), a file, a datasets.Dataset or a list of dicts", _pool_like
)
_JUDGE = Constraint(
    "a judge spec string (e.g. 'learned', 'openai:gpt-4o')", lambda v: isinstance(v, str) and bool(v.strip())
)
_FORMULAS = Constraint(
    "None, a comma-separated string or a list of formula names",
    lambda v: v is None or isinstance(v, str) or (isinstance(v, Sequence) and all(isinstance(f, str) for f in v)),
)
_PATH = Constraint("None or a folder path", lambda v: v is None or isinstance(v, (str, os.PathLike)))


def _setting(default: Any, constraint: Constraint, doc_type: str, help: str) -> Any:
    return field(default=default, metadata={"constraint": constraint, "type": doc_type, "help": help})


@dataclass(frozen=True)
class ScoringConfig:
    """How texts are scored: pool, judge, formulas, placement and long-text units.

    Every field's default, type and meaning are below (its constraint is
    declared beside it); ``ARTS`` scores are in [0, 1], **higher = harder**.
    """

    pool: PoolSpec = _setting(
        DEFAULT_POOL,
        _POOL,
        "str | path | datasets.Dataset | list of dict",
        f"reference pool: one of {', '.join(BUILTIN_POOLS)}, or your own texts (a .jsonl/.csv file, a "
        "datasets.Dataset or a list of dicts) with a `text` field and optionally an `elo` rating "
        "(unrated texts are rated by the judge)",
    )
    judge: str = _setting(
        "learned",
        _JUDGE,
        "str",
        '"learned" (offline, CPU), "openai:<model>" (any OpenAI-compatible endpoint) or '
        '"history:<path>" (a recorded history)',
    )
    judge_options: Mapping[str, Any] | None = _setting(
        None,
        _mapping("judge options"),
        "dict",
        "keyword arguments for the judge, e.g. {'precision': 'int8'} (the learned judge in 8-bit integers on "
        "the CPU), {'device': 'cuda'} or, for an LLM, {'concurrency': 8}; values may be given as text",
    )
    formulas: Any = _setting(
        DEFAULT_FORMULAS,
        _FORMULAS,
        "list of str",
        f"readability formulas reported beside ARTS, any of {', '.join(FORMULAS)} (or a comma-separated "
        "string; 'none' or None for none); FRE is higher = easier, the others higher = harder",
    )
    placement: str | None = _setting(
        None,
        _one_of(*METHODS, optional=True),
        "str",
        'how texts are placed in the frozen pool: "exhaustive" (every pool text; the default for '
        'pointwise judges such as "learned", which need no pairwise calls), "adaptive" (the default for '
        'other judges), "mle", "elo"',
    )
    placement_options: Mapping[str, Any] | None = _setting(
        None,
        _mapping("placement options"),
        "dict",
        'options of the placement method, e.g. {"budget": 24} (judge calls per text), '
        '{"target_width": 0.1} (ARTS units), {"level": 0.95}, {"seed": 0}; see the metric card',
    )
    long_texts: str = _setting(
        "mean",
        _one_of(*LONG_TEXTS),
        "str",
        '"mean": every text is cut into its sentences and its rating is the mean of theirs weighted by '
        "their words, so a score says how hard the language is, not how much there is to read (a text "
        'written twice scores as the text); "team": the rule of release 0.2 (a text longer than '
        "`split_above` characters is split into its sentences and rated as their Bradley-Terry team: "
        'its strength is the sum of theirs, so more to read rates harder); "chunks": the scoring of '
        "releases up to 0.1 (sentences packed into units of at most `chunk_chars` characters, "
        'length-weighted mean of their scores); "whole": every text is judged whole',
    )
    chunk_chars: int = _setting(
        DEFAULT_CHUNK_CHARS,
        _positive_int("characters"),
        "int",
        'unit size for long texts, in characters (long_texts="chunks" only)',
    )
    split_above: int = _setting(
        DEFAULT_SPLIT_ABOVE,
        _positive_int("characters"),
        "int",
        'texts longer than this many characters are cut into units (long_texts="team" and "chunks" only; '
        '"mean" cuts every text into its sentences); 400 is the longest pool texts',
    )
    data_dir: str | os.PathLike | None = _setting(
        None,
        _PATH,
        "str",
        "the ARTS data folder, needed only when a judge must read a built-in pool's texts (e.g. an LLM "
        "judge); default $ARTS_DATA_DIR or ../shared/arts",
    )
    language: str = _setting(
        DEFAULT_LANGUAGE,
        _one_of(*LANGUAGES),
        "str",
        'the language of the texts: "en" (English, the default), "ar" (Arabic), "fr" (French), "hi" (Hindi) or '
        '"ru" (Russian). Another language than English scores against that language\'s README++ pool '
        "(readmepp_<code>) with its offline judge (multilingual:<code>) and reports its published formulas, "
        "where the pool, judge or formulas are left at their defaults; an LLM judge's pairwise prompt names "
        "the language",
    )

    def __post_init__(self) -> None:
        for name, form in BUILT_FORMS.items():
            value = getattr(self, name)
            if isinstance(value, form):
                raise ValueError(
                    f"{name}: a ScoringConfig holds settings, not a built {type(value).__name__} ({value!r:.80}); "
                    f"give it to the scoring function instead ({name}= of compute, score_texts, score_dataset or "
                    "compare_systems), which uses it as it is"
                )
        renamed = RENAMED_LONG_TEXTS.get(self.long_texts) if isinstance(self.long_texts, str) else None
        if renamed is not None:
            warnings.warn(
                f'long_texts="{self.long_texts}" is now called "{renamed}" (the rule of release 0.2); '
                f'write long_texts="{renamed}" to keep it, or leave it out for the default "mean"',
                FutureWarning,
                stacklevel=4,
            )
            object.__setattr__(self, "long_texts", renamed)
        for f in fields(self):
            value = getattr(self, f.name)
            constraint: Constraint = f.metadata["constraint"]
            if not constraint.check(value):
                raise ValueError(f"{f.name} must be {constraint.description}, got {value!r:.200}")
        object.__setattr__(self, "formulas", _formula_names(self.formulas, self.language))
        object.__setattr__(self, "judge_options", dict(self.judge_options or {}))
        options = dict(self.placement_options or {})
        known = sorted({"method", *(name for m in METHODS for name in method_options(m))})
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise ValueError(
                f"placement_options has unknown option(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}"
            )
        object.__setattr__(self, "placement_options", options)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The setting names, in declaration order."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def default(cls, name: str) -> Any:
        """The default of setting ``name``."""
        return _field(name).default

    @classmethod
    def help(cls, name: str) -> str:
        """The documentation of setting ``name`` (one paragraph)."""
        return _field(name).metadata["help"]

    @classmethod
    def choices(cls, name: str) -> tuple[Any, ...] | None:
        """The valid values of setting ``name`` where they are few, else None."""
        return _field(name).metadata["constraint"].choices

    @classmethod
    def docstring(cls, indent: str = "    ") -> str:
        """Every setting as ``name (type, default X): help`` lines, for argument docs."""
        lines = []
        for f in fields(cls):
            default = list(f.default) if isinstance(f.default, tuple) else f.default
            lines.append(
                textwrap.fill(
                    f"{f.name} ({f.metadata['type']}, default {default!r}): {f.metadata['help']}.",
                    width=88,
                    initial_indent=indent,
                    subsequent_indent=indent * 2,
                )
            )
        return "\n".join(lines)

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any] | None = None, base: "ScoringConfig | None" = None, **more: Any
    ) -> "ScoringConfig":
        """``base`` (default: every default) with ``settings`` and ``more`` applied.
        An unknown setting raises ``ValueError`` listing the valid ones."""
        return (base or cls()).replace(**{**(settings or {}), **more})

    def replace(self, **changes: Any) -> "ScoringConfig":
        """A copy with ``changes`` applied (validated again)."""
        unknown = sorted(set(changes) - set(self.names()))
        if unknown:
            raise ValueError(
                f"unknown setting(s) {', '.join(map(repr, unknown))}; valid settings: {', '.join(self.names())}"
                + nested_setting_hint({k: changes[k] for k in unknown})
            )
        return dataclasses.replace(self, **changes)

    def make_judge(self, context: JudgeContext | None = None) -> Judge:
        """The judge built from the ``judge`` spec and ``judge_options``. For a language other
        than English, ``"learned"`` is that language's offline judge, and an LLM judge
        (``openai:``) is told the language (its pairwise prompt names it) unless
        ``judge_options`` give one."""
        spec, options = self.judge, dict(self.judge_options)
        if self.language != DEFAULT_LANGUAGE:
            if spec == "learned":
                spec = judge_spec(self.language)
            elif spec.partition(":")[0] == "openai":
                options.setdefault("language", self.language)
        return get_judge(spec, context=context, **options)

    def make_pool(self, judge: Judge | None = None) -> Pool:
        """The reference pool loaded from the ``pool`` setting (an unrated pool of one's own is
        rated by ``judge``)."""
        pool = self.pool
        if self.language != DEFAULT_LANGUAGE and isinstance(pool, str) and pool == DEFAULT_POOL:
            pool = pool_name(self.language)
        return load_pool(pool, judge=judge, data_dir=self.data_dir)


def nested_setting_hint(unknown: Mapping[str, Any]) -> str:
    """For unknown settings that are options of a judge or of a placement method, the
    setting they belong in, as clauses to append to the error (e.g. ``precision='int8'``:
    ``"; 'precision' is a judge option: pass judge_options={'precision': 'int8'}"``);
    ``""`` when none is."""
    from arts_metric.judges.learned import LearnedJudge
    from arts_metric.llm.options import ALIASES, LLMOptions
    from arts_metric.options import option_types

    judge_names = set(option_types(LearnedJudge, exclude=("weights",))) | set(option_types(LLMOptions)) | set(ALIASES)
    placement_names = {name for method in METHODS for name in method_options(method)}
    hints = []
    for setting, names in (("judge_options", judge_names), ("placement_options", placement_names)):
        found = {k: v for k, v in unknown.items() if k in names}
        if found:
            kind = "a judge option" if setting == "judge_options" else "a placement option"
            which = ", ".join(map(repr, found))
            hints.append(f"; {which} {'is' if len(found) == 1 else 'are each'} {kind}: pass {setting}={found!r}")
    return "".join(hints)


def _field(name: str) -> dataclasses.Field:
    for f in fields(ScoringConfig):
        if f.name == name:
            return f
    raise ValueError(f"unknown setting {name!r}; valid settings: {', '.join(ScoringConfig.names())}")


def _formula_names(formulas: Any, language: str = DEFAULT_LANGUAGE) -> tuple[str, ...]:
    """Canonical formula names, in order, without repeats; for a language other than
    English, the English defaults become that language's formulas."""
    if formulas is None:
        return ()
    if isinstance(formulas, str):
        formulas = [] if formulas.strip().lower() in ("", "none") else [f for f in formulas.split(",") if f.strip()]
    if language != DEFAULT_LANGUAGE:
        from arts_metric.languages.formulas import LANGUAGE_FORMULAS, check_language_formulas

        if tuple(formulas) == DEFAULT_FORMULAS:
            return LANGUAGE_FORMULAS[language]
        return check_language_formulas(formulas, language)
    return tuple(dict.fromkeys(normalize_formula_name(f.strip()) for f in formulas))
