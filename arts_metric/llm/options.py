"""Options of the LLM judges, declared once, from keyword arguments or from the spec string.

Every option can be given as a keyword argument (``get_judge("openai:gpt-4o",
strategy="pointwise")``) or after ``?`` in the spec
(``"openai:gpt-4o?strategy=pointwise&concurrency=8"``); keyword arguments win.
Spec values are strings and are converted to the option's declared type by
:func:`arts_metric.options.convert_option` (``true`` / ``false`` for flags,
``none`` for "not set").

Each field's metadata says what kind of option it is; everything else is
derived from it:

- ``kind="decision"``: shapes an answer (the prompt, the sampling, how answers
  become decisions). ``request=True`` marks the sampling parameters sent with
  every request (:meth:`LLMOptions.request_params`, part of the cache key);
  ``name`` says when the option shows in the judge's canonical name
  (:meth:`LLMOptions.name_tags`): ``"changed"`` when it differs from its
  default, ``"always"`` whenever it applies; ``applies`` lists the strategies
  it applies to (None = all).
- ``kind="transport"``: how requests are sent (concurrency, timeouts, retries,
  cache, budget, progress bar). Never in a cache key or a name:
  :data:`TRANSPORT_OPTIONS`, and with the endpoint's ``base_url`` and
  ``api_key`` :data:`OPERATIONAL_OPTIONS`, the options a build leaves out of
  rater names so that a resumed build with another concurrency or server port
  continues the same rater.
"""

from __future__ import annotations

import dataclasses
import json
import os
import warnings
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Mapping

from arts_metric.languages import DEFAULT_LANGUAGE, check_language
from arts_metric.llm.strategies import DEFAULT_MAX_TOKENS, EASE_STYLES, PAIRWISE, STRATEGIES
from arts_metric.options import convert_options
from arts_metric.text.cefr import CEFR_LEVELS

#: Other spellings of option names.
ALIASES: dict[str, str] = {"topic": "persona"}
TRANSPORT, DECISION = "transport", "decision"


def _option(
    default: Any,
    kind: str,
    help: str,
    *,
    applies: tuple[str, ...] | None = None,
    name: str | None = None,
    request: bool = False,
) -> Any:
    return field(
        default=default,
        metadata={"kind": kind, "help": help, "applies": applies, "name": name, "request": request},
    )


@dataclass
class LLMOptions:
    """All options of an ``openai:`` judge (units in each field's ``help``)."""

    strategy: str = _option(
        "pairwise", DECISION, "pairwise | pairwise_expert | listwise | pointwise | ease_1to5 | cefr", name="changed"
    )
    persona: str | None = _option(
        None,
        DECISION,
        "pairwise_expert: the topic of expertise (alias: topic)",
        applies=("pairwise_expert",),
        name="changed",
    )
    language: str = _option(
        DEFAULT_LANGUAGE,
        DECISION,
        "pairwise: the language of the texts (en, ar, fr, hi, ru); another than English uses the prompt "
        "that names it (arts_pairwise_language)",
        applies=("pairwise",),
        name="changed",
    )
    style: str = _option(
        "own_reasoning",
        DECISION,
        "ease_1to5 prompt: simple | ascb | own_reasoning",
        applies=("ease_1to5",),
        name="always",
    )
    examples: Any = _option(
        None, DECISION, "cefr: list of (text, level) or a .jsonl/.json file of {text, level}", applies=("cefr",)
    )
    k: int = _option(5, DECISION, "cefr: in-context examples per request", applies=("cefr",), name="always")
    both_orders: bool = _option(
        False,
        DECISION,
        "pairwise: ask (a, b) and (b, a), combine, report inconsistency",
        applies=PAIRWISE,
        name="changed",
    )
    # Decision: a coin flip replaces what would otherwise be a missing decision.
    invalid: str = _option("record", DECISION, "record (None, counted) | coin_flip (explicit opt-in, still counted)")
    concurrency: int = _option(16, TRANSPORT, "requests in flight")
    timeout: float = _option(60.0, TRANSPORT, "seconds per request")
    max_retries: int = _option(6, TRANSPORT, "transport retries per request (429, 5xx, timeouts)")
    # Transport: asking again after an unusable answer changes how hard we try, not what a usable answer says.
    max_reasks: int = _option(3, TRANSPORT, "extra asks after an unusable answer (ARTS footnote 6)")
    backoff_base: float = _option(0.5, TRANSPORT, "seconds; doubles per retry, full jitter")
    backoff_max: float = _option(30.0, TRANSPORT, "seconds")
    # Transport: a duplicate of a straggling request, the first answer wins (both may be billed).
    hedges: int = _option(
        0,
        TRANSPORT,
        "duplicates sent for a request far slower than the others (each one counted and budgeted); 0 = never",
    )
    hedge_percentile: float = _option(
        99.0,
        TRANSPORT,
        "with hedges: a request is duplicated once in flight 3x this percentile of the answered requests' seconds "
        "(at least 1 s, after 20 answers)",
    )
    hedge_after: float | None = _option(
        None, TRANSPORT, "with hedges: seconds before a request is duplicated; None = from hedge_percentile"
    )
    temperature: float | None = _option(0.0, DECISION, "the ARTS authors used 0; None = server default", request=True)
    top_p: float | None = _option(None, DECISION, "nucleus sampling; None = server default", request=True)
    seed: int | None = _option(None, DECISION, "sampling seed sent to the endpoint", request=True)
    # Decision: a cap can cut an answer (a listwise ranking, a reason) short.
    max_tokens: int | None = _option(None, DECISION, "completion cap; None = the strategy's default", request=True)
    cache: bool = _option(True, TRANSPORT, "use the SQLite judgment cache")
    cache_dir: str | None = _option(None, TRANSPORT, "default: $ARTS_CACHE_DIR, else the user cache dir / arts-metric")
    # Transport: re-asks what the cache holds as unusable; a usable answer is the same either way.
    retry_invalid: bool = _option(False, TRANSPORT, "re-ask judgments cached as unusable")
    max_requests: int | None = _option(None, TRANSPORT, "stop before sending more requests than this")
    max_cost: float | None = _option(None, TRANSPORT, "US dollars; needs price_in and price_out")
    price_in: float | None = _option(None, TRANSPORT, "US dollars per million prompt tokens")
    price_out: float | None = _option(None, TRANSPORT, "US dollars per million completion tokens")
    progress: bool = _option(True, TRANSPORT, "tqdm bar on stderr")
    # Decision: which texts share a ranking decides their positions.
    batch_size: int = _option(100, DECISION, "listwise: texts per ranking request", applies=("listwise",))
    # Decision: which rankings count as usable.
    min_coverage: float = _option(
        0.5, DECISION, "listwise: least share of texts a usable ranking places", applies=("listwise",)
    )
    rng_seed: int = _option(0, DECISION, "coin flips and the choice of CEFR examples")

    def __post_init__(self) -> None:
        if self.strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {', '.join(STRATEGIES)}, got {self.strategy!r}")
        if self.strategy == "pairwise_expert":
            if not isinstance(self.persona, str) or not self.persona.strip() or "\n" in self.persona:
                raise ValueError("strategy 'pairwise_expert' needs persona=<topic> (e.g. persona='medical')")
        elif self.persona is not None and self.strategy == "pairwise":
            self.strategy = "pairwise_expert"  # a persona implies the domain-expert prompt
        elif self.persona is not None:
            raise ValueError(f"persona applies to the pairwise strategies only, not to {self.strategy!r}")
        self.language = check_language(self.language)
        if self.language != DEFAULT_LANGUAGE and self.strategy != "pairwise":
            warnings.warn(
                f"language={self.language!r}: only the pairwise prompt names the language of the texts; the "
                f"{self.strategy} prompt is the English one whatever the language",
                UserWarning,
                stacklevel=3,
            )
        if self.style not in EASE_STYLES:
            raise ValueError(f"style must be one of {', '.join(EASE_STYLES)}, got {self.style!r}")
        if self.invalid not in ("record", "coin_flip"):
            raise ValueError(f"invalid must be 'record' or 'coin_flip', got {self.invalid!r}")
        _positive_int("concurrency", self.concurrency)
        _positive_int("batch_size", self.batch_size, minimum=2)
        _positive_int("max_retries", self.max_retries, minimum=0)
        _positive_int("max_reasks", self.max_reasks, minimum=0)
        _positive_int("hedges", self.hedges, minimum=0)
        _positive_int("k", self.k, minimum=0)
        _positive_int("rng_seed", self.rng_seed, minimum=0)
        if self.max_tokens is not None:
            _positive_int("max_tokens", self.max_tokens)
        if self.max_requests is not None:
            _positive_int("max_requests", self.max_requests, minimum=0)
        for name in ("timeout", "backoff_base", "backoff_max"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        if self.hedge_after is not None and (
            not isinstance(self.hedge_after, (int, float))
            or isinstance(self.hedge_after, bool)
            or self.hedge_after <= 0
        ):
            raise ValueError(f"hedge_after must be a positive number of seconds or None, got {self.hedge_after!r}")
        if (
            not isinstance(self.hedge_percentile, (int, float))
            or isinstance(self.hedge_percentile, bool)
            or not 0 < self.hedge_percentile <= 100
        ):
            raise ValueError(f"hedge_percentile must be a number in (0, 100], got {self.hedge_percentile!r}")
        if self.temperature is not None and not (
            isinstance(self.temperature, (int, float)) and 0 <= self.temperature <= 2
        ):
            raise ValueError(f"temperature must be in [0, 2] or None, got {self.temperature!r}")
        if not 0 < self.min_coverage <= 1:
            raise ValueError(f"min_coverage must be in (0, 1], got {self.min_coverage!r}")
        if self.strategy == "cefr":
            self.examples = load_examples(self.examples)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], source: str = "judge options") -> "LLMOptions":
        """Build from keyword arguments and/or spec strings (strings are converted by the declared types)."""
        types = {f.name: f.type for f in fields(cls)}
        known = ("base_url", "api_key")  # endpoint arguments, taken before the options are built
        converted = convert_options(values, types, source, aliases=ALIASES, also_known=known)
        for key in known:
            if key in converted:
                raise ValueError(f"give {key} as an argument (or the base URL after '@'), not as a judge option")
        return cls(**converted)

    def request_params(self) -> dict[str, Any]:
        """The sampling parameters sent with every request (the ``request=True`` fields;
        ``max_tokens`` filled with the strategy's default): part of every cache key."""
        params = {f.name: getattr(self, f.name) for f in fields(self) if f.metadata["request"]}
        params["max_tokens"] = params["max_tokens"] or DEFAULT_MAX_TOKENS[self.strategy]
        return params

    def name_tags(self) -> list[str]:
        """``key=value`` for each named decision option that applies to the strategy, in
        declaration order: what a judge's canonical name adds after ``?``."""
        tags = []
        for f in fields(self):
            when, applies = f.metadata["name"], f.metadata["applies"]
            if when is None or (applies is not None and self.strategy not in applies):
                continue
            value = getattr(self, f.name)
            if when == "always" or value != f.default:
                tags.append(f"{f.name}={str(value).lower() if isinstance(value, bool) else value}")
        return tags

    def replace(self, **changes: Any) -> "LLMOptions":
        return dataclasses.replace(self, **changes)


def _positive_int(name: str, value: Any, minimum: int = 1) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def load_examples(examples: Any) -> tuple[tuple[str, str], ...]:
    """CEFR in-context examples as ``((text, level), ...)`` from a list or a JSON/JSONL file
    of ``{"text": ..., "level": "B1"}`` rows (levels A1..C2 or 1..6)."""
    if examples is None:
        return ()
    if isinstance(examples, (str, os.PathLike)):
        path = Path(examples).expanduser()
        if not path.is_file():
            raise ValueError(f"examples file {path} does not exist")
        text = path.read_text(encoding="utf-8")
        json_file = path.suffix == ".json"
        examples = []
        for n, line in enumerate([text] if json_file else text.splitlines(), 1):
            if json_file or line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise ValueError(
                        f"examples file {path}, line {exc.lineno if json_file else n}: not valid JSON ({exc.msg})"
                    ) from None
                examples = row if json_file else examples + [row]
        if not isinstance(examples, list):
            raise ValueError(f"examples file {path} must hold a list of {{'text', 'level'}} objects")
    out = []
    for i, ex in enumerate(examples):
        if isinstance(ex, Mapping):
            text, level = ex.get("text"), ex.get("level")
        elif isinstance(ex, (tuple, list)) and len(ex) == 2:
            text, level = ex
        else:
            raise ValueError(f"examples[{i}] must be (text, level) or {{'text', 'level'}}, got {ex!r}")
        if isinstance(level, int) and not isinstance(level, bool) and 1 <= level <= 6:
            level = CEFR_LEVELS[level - 1]
        if not isinstance(text, str) or not text.strip() or str(level).upper() not in CEFR_LEVELS:
            raise ValueError(f"examples[{i}] needs a non-empty text and a level in A1..C2, got {ex!r}")
        out.append((text, str(level).upper()))
    return tuple(out)


def option_names(kind: str) -> tuple[str, ...]:
    """The :class:`LLMOptions` field names of one ``kind`` (``"transport"`` or ``"decision"``)."""
    if kind not in (TRANSPORT, DECISION):
        raise ValueError(f"kind must be {TRANSPORT!r} or {DECISION!r}, got {kind!r}")
    return tuple(f.name for f in fields(LLMOptions) if f.metadata["kind"] == kind)


#: How requests are sent: never part of a cache key or a judge's name.
TRANSPORT_OPTIONS: frozenset[str] = frozenset(option_names(TRANSPORT))
#: Judge arguments that change how, not what, an ``openai:`` judge decides: the
#: transport options plus the endpoint's ``base_url`` and ``api_key``.
OPERATIONAL_OPTIONS: frozenset[str] = TRANSPORT_OPTIONS | {"base_url", "api_key"}
