"""ARTS: Assessing Readability & Text Simplicity, as a Hugging Face ``evaluate`` metric.

Needs the ``arts-metric`` package (docs/install.md, "From a wheel"); once installed,
``arts register`` makes ``evaluate.load("arts")`` find this script, a thin shell around
:func:`arts_metric.scoring.api.score_texts`. Its settings (pool, judge, formulas, placement,
long texts, ...) and their defaults are :class:`arts_metric.scoring.config.ScoringConfig`'s.

Inputs are ``predictions``, optionally with ``sources`` and ``references``: one
feature schema holds all three, and an input that is not given is stored as
None and read back as absent, so the inputs stream with ``add``/``add_batch``
and combine with metrics of SARI's signature in ``evaluate.combine``. Settings
given to ``evaluate.load`` become this module's defaults, which ``compute``
arguments override. The judge and pool are built when the module is loaded.

What this script uses of ``evaluate``, and why:

- ``_info``, ``_download_and_prepare`` and ``_compute``: the hooks every module
  script fills in (``comet`` overrides the same three).
- ``__init__``: ``evaluate.load`` hands the configuration name and its keyword
  arguments to the module's constructor, which is the only place to take
  load-time settings; it checks them and calls evaluate's own constructor.
- ``add``, ``add_batch`` and ``compute``: evaluate's public methods, extended and
  then called: every input is checked (messages name the item, and the singular
  or plural name the user should have given), the singular ``source=`` of
  ``add`` is accepted, absent inputs are filled with None for the one schema,
  and ``compute`` takes settings and inputs given after streaming. A bad
  setting of ``compute()`` is refused before evaluate reads the added examples,
  which stay for the next call; a ``compute()`` that fails on the examples
  themselves (an empty text) consumes them, as in every ``evaluate`` module, so
  the next call starts afresh. Dropping evaluate's cache file at that point would
  take its private attributes; it stays in evaluate's metrics cache folder.
- Public attributes read: ``num_process``, ``process_id`` and ``len(self)`` (the
  examples added), to name the process whose inputs differ in a distributed run.
- Private: ``evaluate.utils.file_utils.add_start_docstrings`` (in every 0.4 release),
  so that ``help()`` shows the arguments below, and ``_feature_names``, which
  ``evaluate.combine`` reads to find each input among the user's arguments: extended
  so that a missing ``sources`` fails with the fix in its ``KeyError``
  (:mod:`arts_metric.evaluate_module.names`). No cache file, lock or writer internals.
"""

import inspect

import datasets
import evaluate

from arts_metric import __version__ as _ARTS_VERSION
from arts_metric.data import BUILTIN_POOLS
from arts_metric.evaluate_module.names import SOURCES
from arts_metric.ratings.directions import check_direction
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig, nested_setting_hint
from arts_metric.scoring.scorer import Scorer, split_settings
from arts_metric.text.checks import check_empty_policy, check_human_scores, check_text

_CITATION = """\
@inproceedings{engelmann-etal-2024-arts,
    title = "{ARTS}: Assessing Readability {\\&} Text Simplicity",
    author = "Engelmann, Bj{\\"o}rn and Kreutz, Christin Katharina and Haak, Fabian and Schaer, Philipp",
    booktitle = "Findings of the Association for Computational Linguistics: EMNLP 2024",
    year = "2024",
    publisher = "Association for Computational Linguistics",
}
"""

_DESCRIPTION = """\
ARTS scores how hard a text is to understand. The text plays pairwise "which text
is harder?" matches against a reference pool of texts whose difficulty is known
(ARTS94 rated by 16 humans; ARTS300/ARTS3000 rated by GPT-4); the results give
it a rating on the pool's Elo scale (`arts_elo`) and a score in [0, 1] (`arts`):
the share of pool texts rated easier. Higher = harder. The default judge is a
learned model that runs offline on a CPU; LLM judges behind any OpenAI-compatible
endpoint plug in with `judge="openai:<model>"`. Traditional readability formulas
(FKGL, FRE, Dale-Chall, ...) are reported beside it.
"""

_KWARGS_DESCRIPTION = (
    """
Args:
    predictions (list of str): texts to score (e.g. system outputs).
    sources (list of str, optional): the texts before simplification, aligned
        with `predictions`; adds `source_*` scores and `arts_delta`.
    references (list of list of str, optional): reference simplifications, one
        list per prediction (ARTS stays reference-free); adds `reference_arts`,
        the mean `arts` of each prediction's references.
    human_scores (list of float, optional): human difficulty judgments of the
        predictions (at least 3, not all equal); adds `correlation` (Pearson,
        Spearman, Kendall, p-values) for every reported metric, signed so
        positive = agrees with humans.
    human_higher_is ("harder" | "simpler", default "harder"): direction of
        `human_scores`.
    empty ("error" | "score", default "error"): an empty or whitespace-only
        text is a ValueError naming it, or (with "score") is scored like a text
        without a word (below), with None formulas, counted in `n_empty`.
    return_sentences (bool, default False): add `sentences` (and
        `source_sentences` with sources): each text's sentences in reading
        order, each a dict with `text`, `arts`, `arts_elo` and `words`; the
        text's `arts_elo` is the mean of theirs weighted by `words`. Needs
        long_texts="mean" (the default).
    corpus_only (bool, default False; True for the configuration "corpus"):
        return only the corpus-level numbers (see Returns), as evaluate's own
        metrics do, so that `evaluate.evaluator(..., strategy="bootstrap")` and
        other pipelines that expect one number per key work.
"""
    + ScoringConfig.docstring()
    + """
Load-time settings: evaluate.load("arts", CONFIG) with CONFIG one of "default",
    "arts94", "arts300", "arts3000" selects the pool, "corpus" sets
    corpus_only=True; keyword arguments to evaluate.load (pool=, judge=,
    judge_options=, formulas=, language=, empty=, corpus_only=, return_sentences=, ...) become the
    defaults of every compute() call, which may override them (evaluate.load("arts", language="fr")
    scores French texts against the French pool with the French judge). `add` takes one example
    (prediction=, source=, references=); `add_batch` and `compute` take lists
    (predictions=, sources=, references=); inside `evaluate.combine`, `add` and
    `add_batch` need sources= by that name (sources=None without sources).
Returns:
    arts (list of float in [0, 1], higher = harder), arts_elo (list of float, Elo points: the same
    position on the pool's own rating scale), arts_interval (per text [low, high], 95%), arts_mean (float)
    and arts_mean_interval, fkgl / fre / dale_chall (lists; FRE is higher = easier; None where undefined),
    n_formula_undefined, n_wordless (predictions without a word: fewer than two letters in a row,
    such as "!", "42" or "A"; each gets `arts` 1.0, the hardest end, and `arts_elo` at the top of
    the pool's scale, is named in a warning and is never sent to the judge), units (pieces per
    text), judge_calls (decisions asked of a judge that is asked per decision or per text, such as
    an LLM: the requests that can cost; 0 for the learned judge, which decides from its own
    per-text scores), judge_stats (this call's counters; its `calls` counts every text or pair the
    judge read, pool texts and sentences of long texts included, so it exceeds judge_calls for the
    learned judge), judge_report (those counters as one line to print: judgments and the requests
    sent for them; None for a judge that sends no requests), invalid, judge, pool, placement,
    arts_signature; with sources: source_arts, source_arts_elo, source_<formula>, arts_delta
    (source_arts - arts: positive = output easier), arts_delta_mean, p_output_easier and its mean
    (learned judge: P(output easier than its source) from its close-pair method); with references:
    reference_arts, reference_arts_mean; with human_scores: correlation. Undefined values are None.
    With corpus_only: only arts_mean and the other `*_mean` values above, and
    `<formula>_mean` (the mean over the texts where the formula is defined);
    the signature and judge_report are left out then (they are text, not numbers).
Examples:
    >>> arts = evaluate.load("arts")
    >>> out = arts.compute(predictions=["The cat sat on the mat.",
    ...     "Notwithstanding the foregoing, the lessee shall indemnify the lessor."])
    >>> out["arts"][0] < out["arts"][1]
    True
    >>> out = arts.compute(predictions=["The cat sat on the mat."],
    ...     sources=["The feline positioned itself upon the woven floor covering."],
    ...     references=[["The cat sat on the rug.", "A cat sat on a mat."]])
    >>> out["arts_delta"][0] > 0   # the output is easier than its source
    True
    >>> for batch in (["The dog ran."], ["Photosynthesis converts light into chemical energy."]):
    ...     arts.add_batch(predictions=batch, sources=["The canine sprinted away."] * len(batch))
    >>> len(arts.compute(formulas=[])["source_arts"])
    2
"""
)

_TEXT = datasets.Value("string")
#: Every input in one schema; an input that is not given is stored as None. Sources are
#: "large_string" because evaluate's type check refuses None for a "string" value;
#: every text is checked here before evaluate stores it.
FEATURES = datasets.Features(
    {"predictions": _TEXT, "sources": datasets.Value("large_string"), "references": datasets.Sequence(_TEXT)}
)
INPUTS = tuple(FEATURES)
#: The singular names (as evaluate's ``add(prediction=, reference=)``) and their plurals.
SINGULAR = {"prediction": "predictions", "source": "sources", "reference": "references"}
#: Configuration names: "default" (the default pool), a built-in pool, or "corpus".
CORPUS_CONFIG = "corpus"
CONFIG_NAMES = ("default", *BUILTIN_POOLS, CORPUS_CONFIG)
#: Settings of this module beside ScoringConfig's (they shape the result, not the scores).
MODULE_SETTINGS = ("empty", "corpus_only", "return_sentences")
#: Settings ``evaluate.load`` may give beside evaluate's own arguments.
LOAD_SETTINGS = (*ScoringConfig.names(), *MODULE_SETTINGS)
#: compute() arguments that are neither inputs nor settings.
COMPUTE_ONLY = ("human_scores", "human_higher_is")
_MODULE_ARGUMENTS = frozenset(inspect.signature(evaluate.EvaluationModule.__init__).parameters) - {"self", "kwargs"}


def _check_bool(value, name):
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be True or False, got {value!r:.60}")
    return value


def _refuse(names, method):
    """ValueError for arguments ``method`` does not take, naming what to give instead."""
    wrong = sorted(names)
    hints = [f"{SINGULAR[n]}= (a list), not {n}=" for n in wrong if n in SINGULAR and method != "add"]
    if hints:
        raise ValueError(f"{method}() takes {'; '.join(hints)}")
    later = [n for n in wrong if n in LOAD_SETTINGS or n in COMPUTE_ONLY]
    if later and len(later) == len(wrong):
        raise ValueError(f"{method}() takes the inputs only; {later} go to compute()")
    raise ValueError(
        f"unknown argument(s) {', '.join(map(repr, wrong))} for {method}(); inputs: "
        f"{', '.join(['prediction', 'source', 'reference'] if method == 'add' else INPUTS)}"
        + ("" if method != "compute" else f", {', '.join(COMPUTE_ONLY)}; settings: {', '.join(LOAD_SETTINGS)}")
    )


def _check_inputs(columns, start):
    """Validate one batch of inputs (None where absent) before evaluate stores it; returns
    the present ones, references as lists. Indices count from ``start``, the examples added before."""
    present = {name: value for name, value in columns.items() if value is not None}
    if "predictions" not in present:
        raise ValueError("predictions is missing: give predictions= (or prediction= to add())")
    for name, values in present.items():
        if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
            raise ValueError(f"{name} must be a list, got {type(values).__name__}")
    n = len(present["predictions"])
    for name, values in present.items():
        if len(values) != n:
            raise ValueError(f"{name} has {len(values)} items but predictions has {n}")
        if name == "references":
            refs = []
            for i, item in enumerate(values):
                item = [item] if isinstance(item, str) else item.tolist() if hasattr(item, "tolist") else item
                if not isinstance(item, (list, tuple)) or not item:
                    raise ValueError(f"references[{start + i}] must be a non-empty list of strings, got {item!r:.60}")
                refs.append(
                    [check_text(r, f"references[{start + i}][{j}]", allow_empty=True) for j, r in enumerate(item)]
                )
            present[name] = refs
        else:
            present[name] = [check_text(t, f"{name}[{start + i}]", allow_empty=True) for i, t in enumerate(values)]
    return present


def _processes(first, last, num_process):
    return f"process {first}" if first == last else f"processes {first}-{last}"


def _present(name, values, own, num_process):
    """``values`` if every example has this input, None if none has; otherwise a ValueError
    naming the processes (a distributed run: ``own`` examples came from process 0) or the item."""
    missing = [i for i, v in enumerate(values) if v is None]
    if not missing:
        return values
    if len(missing) == len(values):
        return None
    if num_process > 1:
        lacking = "process 0" if missing[0] < own else _processes(1, num_process - 1, num_process)
        giving = "process 0" if missing[0] >= own else _processes(1, num_process - 1, num_process)
        raise ValueError(
            f"{name} were added by {giving} but not by {lacking} (examples {missing[0]}-{missing[-1]} of "
            f"{len(values)}): in a distributed run every process must add the same inputs"
        )
    raise ValueError(f"{name}[{missing[0]}] is None: give {name} for every prediction or for none")


def _corpus(result, formulas):
    """The corpus-level numbers of ``result``: every ``*_mean`` and each formula's mean."""
    out = {key: value for key, value in result.items() if key.endswith("_mean") and not isinstance(value, list)}
    for name in formulas:
        defined = [v for v in result[name] if v is not None]
        out[f"{name}_mean"] = sum(defined) / len(defined) if defined else None
    return out


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ARTS(evaluate.Metric):
    """ARTS: pairwise judge + Elo + rank score against a frozen reference pool."""

    def __init__(self, config_name=None, **kwargs):
        settings = {name: kwargs.pop(name) for name in list(kwargs) if name in LOAD_SETTINGS}
        unknown = sorted(set(kwargs) - _MODULE_ARGUMENTS)
        if unknown:
            raise ValueError(
                f"unknown setting(s) {', '.join(map(repr, unknown))} for evaluate.load('arts'); valid settings: "
                f"{', '.join(LOAD_SETTINGS)}" + nested_setting_hint({k: kwargs[k] for k in unknown})
            )
        if config_name is not None and config_name not in CONFIG_NAMES:
            raise ValueError(f"unknown configuration {config_name!r} of 'arts'; valid: {', '.join(CONFIG_NAMES)}")
        if config_name in BUILTIN_POOLS:
            if settings.get("pool", config_name) != config_name:
                raise ValueError(
                    f"configuration {config_name!r} selects pool {config_name!r}, "
                    f"but pool={settings['pool']!r} was given too: give one"
                )
            settings["pool"] = config_name
        elif config_name is None and isinstance(settings.get("pool"), str) and settings["pool"] in BUILTIN_POOLS:
            config_name = settings["pool"]
        corpus = config_name == CORPUS_CONFIG
        if corpus and settings.get("corpus_only", True) is not True:
            raise ValueError(f"configuration {CORPUS_CONFIG!r} returns corpus-level values; drop corpus_only=False")
        self.empty = check_empty_policy(settings.pop("empty", "error"))
        #: Whether compute() returns only corpus-level numbers (see "Returns").
        self.corpus_only = _check_bool(settings.pop("corpus_only", corpus), "corpus_only")
        #: Whether compute() adds each text's sentences with their scores (``sentences``).
        self.return_sentences = _check_bool(settings.pop("return_sentences", False), "return_sentences")
        #: The settings given at load time over the defaults (validated here, at load).
        self.defaults, self._built = split_settings(settings)  # a judge or pool given built stays apart
        self._prepared = None  # the Scorer of the defaults (judge and pool built), once loaded
        self._stream = None  # the inputs of the examples added since the last compute()
        super().__init__(config_name=config_name, **kwargs)

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=FEATURES,
            codebase_urls=["https://github.com/irgroup/ARTS"],
            reference_urls=["https://github.com/irgroup/ARTS"],
            module_type="metric",
        )

    def _feature_names(self):
        """The input names, ``sources`` with the fix for ``evaluate.combine`` in its repr (see
        :mod:`arts_metric.evaluate_module.names`)."""
        return [SOURCES if name == "sources" else name for name in super()._feature_names()]

    def _download_and_prepare(self, dl_manager):
        """Build the default judge (loading its model) and pool once, as ``comet`` loads
        its checkpoint; nothing is downloaded and no judge request is sent."""
        scorer = Scorer.prepare(self.defaults, **self._built)
        if hasattr(type(scorer.judge), "encoder"):
            _ = scorer.judge.encoder  # the learned judge's sentence encoder: loaded now, not on first compute
        self._prepared = scorer

    # -- inputs ----------------------------------------------------------------
    def _checked_batch(self, columns):
        """``columns`` checked and completed with None for the absent inputs; the stream's
        inputs must stay the same from one add/add_batch call to the next."""
        start = len(self)
        if start == 0:
            self._stream = None
        batch = _check_inputs(columns, start)
        names = sorted(batch)
        if self._stream is not None and names != self._stream:
            raise ValueError(
                f"inputs {names} differ from those added before ({self._stream}): "
                "give the same inputs to every add/add_batch call"
            )
        self._stream = names
        n = len(batch["predictions"])
        return {name: batch.get(name, [None] * n) for name in INPUTS}

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions (with their sources and references, if any)."""
        sources = kwargs.pop("sources", None)
        if kwargs:
            _refuse(kwargs, "add_batch")
        return super().add_batch(
            **self._checked_batch({"predictions": predictions, "sources": sources, "references": references})
        )

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction (with its source and references, if any)."""
        example = {
            "predictions": kwargs.pop("predictions", prediction),
            "sources": kwargs.pop("sources", kwargs.pop("source", None)),
            "references": kwargs.pop("references", reference),
        }
        if kwargs:
            _refuse(kwargs, "add")
        batch = self._checked_batch({k: None if v is None else [v] for k, v in example.items()})
        return super().add(prediction=batch.pop("predictions")[0], **{k: v[0] for k, v in batch.items()})

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score ``predictions`` with ARTS (higher = harder); see the arguments below.

        After ``add``/``add_batch``, ``compute()`` scores what was added;
        ``sources=`` and ``references=`` may then still be given here when the
        added inputs lack them (aligned with everything added).
        """
        sources = kwargs.pop("sources", None)
        unknown = set(kwargs) - set(LOAD_SETTINGS) - set(COMPUTE_ONLY)
        if unknown:
            _refuse(unknown, "compute")
        self._check_settings(kwargs)
        if predictions is None:
            n = len(self)
            if n == 0:
                raise ValueError("predictions is missing: pass predictions= or add them with add()/add_batch() first")
            late = {"sources": sources, "references": references}
            for name, value in late.items():
                if value is not None and name in self._stream:
                    raise ValueError(f"{name} were already added with add()/add_batch(); do not give them again")
            _check_inputs({"predictions": [""] * n, **late}, 0)
            kwargs["_late"] = {name: value for name, value in late.items() if value is not None}
            inputs = {}
        else:
            n = len(self) + (len(predictions) if hasattr(predictions, "__len__") else 0)
            inputs = {"predictions": predictions, "references": references, "sources": sources}
        if kwargs.get("human_scores") is not None:
            check_human_scores(kwargs["human_scores"], n, kwargs.get("human_higher_is", "harder"))
        kwargs["_own"] = n  # the examples of this process (process 0 reads the others' after them)
        try:
            return super().compute(**inputs, **kwargs)
        finally:
            if len(self) == 0:  # evaluate has read the added examples: the stream starts afresh
                self._stream = None

    def _check_settings(self, kwargs):
        """Every setting of a compute() call, checked before evaluate reads the added examples."""
        settings = {k: v for k, v in kwargs.items() if k in ScoringConfig.names()}
        split_settings(settings, base=self.defaults)
        if "empty" in kwargs:
            check_empty_policy(kwargs["empty"])
        if "corpus_only" in kwargs:
            _check_bool(kwargs["corpus_only"], "corpus_only")
        if "return_sentences" in kwargs:
            _check_bool(kwargs["return_sentences"], "return_sentences")
        if "human_higher_is" in kwargs:
            check_direction(kwargs["human_higher_is"], "human_higher_is")

    def _compute(
        self,
        predictions,
        sources=None,
        references=None,
        human_scores=None,
        human_higher_is="harder",
        empty=None,
        corpus_only=None,
        return_sentences=None,
        _late=None,
        _own=0,
        **settings,
    ):
        # Every setting and its default lives in ScoringConfig (documented above);
        # load-time settings are the base, compute() arguments override them.
        inputs = {"sources": sources, "references": references}
        for name, values in inputs.items():
            inputs[name] = _present(name, list(values), _own, self.num_process) if values is not None else None
            if inputs[name] is None and name in (_late or {}):
                inputs[name] = _late[name]
        config, _ = split_settings(settings, base=self.defaults)
        ready = self._built if self._prepared is None else {"judge": self._prepared.judge, "pool": self._prepared.pool}
        # The judge and pool built at load time serve every compute() that does not change them; another
        # language than the load-time one picks its own judge and pool (one given built stays).
        relanguaged = config.language != self.defaults.language
        keep = {}
        if not {"judge", "judge_options"} & set(settings):
            for name, overridden in (("judge", ()), ("pool", ("pool", "data_dir"))):
                if name in ready and not set(overridden) & set(settings) and (name in self._built or not relanguaged):
                    keep[name] = ready[name]
        result = score_texts(
            list(predictions),
            sources=inputs["sources"],
            references=inputs["references"],
            human_scores=human_scores,
            human_higher_is=human_higher_is,
            empty=self.empty if empty is None else empty,
            return_sentences=self.return_sentences if return_sentences is None else return_sentences,
            config=self.defaults,
            **keep,
            **settings,
        )
        result["arts_metric_version"] = _ARTS_VERSION
        if self.corpus_only if corpus_only is None else corpus_only:
            return _corpus(result, config.formulas)
        return result
