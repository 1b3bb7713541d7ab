"""ARTS: Assessing Readability & Text Simplicity, as a Hugging Face ``evaluate`` metric.

Needs the ``arts-metric`` package (see its README: "Install from a wheel"); this
script is a thin shell around :func:`arts_metric.scoring.score_texts`. Its
settings (pool, judge, formulas, placement, long texts, ...) and their defaults
are :class:`arts_metric.config.ScoringConfig`'s, documented from there.

Inputs are ``predictions``, optionally with ``sources`` and ``references`` (the
feature sets below), so they can be streamed with ``add``/``add_batch`` and
combined with metrics of SARI's signature in ``evaluate.combine``. Settings
given to ``evaluate.load`` (``evaluate.load("arts", "arts300")`` selects the
pool by configuration name; ``evaluate.load("arts", judge=..., formulas=...)``)
become this module's defaults, which ``compute`` arguments override. The
judge and pool are built when the module is loaded (``_download_and_prepare``).

What this script uses of ``evaluate`` beyond ``_info``/``_download_and_prepare``/
``_compute`` (the three methods ``comet`` overrides), and why:

- ``__init__``, ``add``, ``add_batch``, ``compute``: settings given to
  ``evaluate.load`` become defaults, and the singular ``source=`` of ``add`` and
  every input are checked with messages naming them; each then calls
  ``evaluate``'s own method.
- ``_infer_feature_from_batch``, ``_infer_feature_from_example``,
  ``_feature_names``, ``selected_feature_format`` and ``writer``: the inputs
  come in three feature sets (predictions; with sources; with references), which
  ``evaluate`` supports through these hooks; ``_select`` keeps a stream's feature
  set fixed.
- ``buf_writer``, ``filelocks``, ``file_paths``, ``cache_file_name``,
  ``filelock`` and ``data`` (``_discard_added``): after a ``compute()`` that fails
  on a bad input, the added examples and their cache files are dropped as a
  successful ``compute()`` drops them, so the next call starts afresh.
  ``evaluate`` has no public method for this; the attributes are those of
  ``EvaluationModule`` in every 0.4 release, which is why the dependency is
  capped below 0.5.
"""

import inspect
import os

import datasets
import evaluate

from arts_metric import __version__ as _ARTS_VERSION
from arts_metric.config import ScoringConfig
from arts_metric.data import BUILTIN_POOLS
from arts_metric.inputs import check_empty_policy, check_text
from arts_metric.scorer import Scorer, split_settings
from arts_metric.scoring import score_texts

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
        text is a ValueError naming it, or (with "score") gets `arts` 0.0 and
        None formulas, counted in `n_empty`.
"""
    + ScoringConfig.docstring()
    + """
Load-time settings: evaluate.load("arts", CONFIG) with CONFIG one of "default",
    "arts94", "arts300", "arts3000" selects the pool; keyword arguments to
    evaluate.load (pool=, judge=, judge_options=, formulas=, empty=, ...) become
    the defaults of every compute() call, which may override them.
Returns:
    arts (list of float in [0, 1], higher = harder), arts_elo (list of float,
    unbounded, pool's Elo scale), arts_interval (per text [low, high], 95%),
    arts_mean (float) and arts_mean_interval, fkgl / fre / dale_chall
    (lists; FRE is higher = easier; None where a formula is undefined),
    n_formula_undefined, units (pieces per text), judge_calls, invalid, judge,
    pool, placement; with sources: source_arts, source_arts_elo,
    source_<formula>, arts_delta (source_arts - arts: positive = output easier),
    arts_delta_mean, p_output_easier and its mean (learned judge: P(output
    easier than its source) from its close-pair method); with references: reference_arts, reference_arts_mean;
    with human_scores: correlation. Undefined values are None.
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
#: The input sets ``add``/``add_batch``/``compute`` accept, by the inputs they carry.
FEATURE_SETS = [
    datasets.Features({"predictions": _TEXT}),
    datasets.Features({"predictions": _TEXT, "sources": _TEXT}),
    datasets.Features({"predictions": _TEXT, "references": datasets.Sequence(_TEXT)}),
    datasets.Features({"predictions": _TEXT, "sources": _TEXT, "references": datasets.Sequence(_TEXT)}),
]
INPUTS = ("predictions", "sources", "references")
#: Configuration names: "default" (the default pool) or a built-in pool.
CONFIG_NAMES = ("default", *BUILTIN_POOLS)
#: Settings ``evaluate.load`` may give beside evaluate's own arguments.
LOAD_SETTINGS = (*ScoringConfig.names(), "empty")
_MODULE_ARGUMENTS = frozenset(inspect.signature(evaluate.EvaluationModule.__init__).parameters) - {"self", "kwargs"}


def _check_inputs(columns, start):
    """Validate one batch of inputs (None where absent) before evaluate converts them
    to Arrow; returns the present ones, references as lists. Indices count from
    ``start``, the number of examples added before."""
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
                item = [item] if isinstance(item, str) else item
                if not isinstance(item, (list, tuple)) or not item:
                    raise ValueError(f"references[{start + i}] must be a non-empty list of strings, got {item!r:.60}")
                refs.append(
                    [check_text(r, f"references[{start + i}][{j}]", allow_empty=True) for j, r in enumerate(item)]
                )
            present[name] = refs
        else:
            present[name] = [check_text(t, f"{name}[{start + i}]", allow_empty=True) for i, t in enumerate(values)]
    return present


def _features_for(names):
    names = set(names)
    for features in FEATURE_SETS:
        if set(features) == names:
            return features
    raise ValueError(f"no input set with {sorted(names)}; valid sets: {[list(f) for f in FEATURE_SETS]}")


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ARTS(evaluate.Metric):
    """ARTS: pairwise judge + Elo + rank score against a frozen reference pool."""

    def __init__(self, config_name=None, **kwargs):
        settings = {name: kwargs.pop(name) for name in list(kwargs) if name in LOAD_SETTINGS}
        unknown = sorted(set(kwargs) - _MODULE_ARGUMENTS)
        if unknown:
            raise ValueError(
                f"unknown setting(s) {', '.join(map(repr, unknown))} for evaluate.load('arts'); valid settings: "
                f"{', '.join(LOAD_SETTINGS)}"
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
        self.empty = check_empty_policy(settings.pop("empty", "error"))
        #: The settings given at load time over the defaults (validated here, at load).
        self.defaults, self._built = split_settings(settings)  # a judge or pool given built stays apart
        self._prepared = None  # the Scorer of the defaults (judge and pool built), once loaded
        super().__init__(config_name=config_name, **kwargs)

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=FEATURE_SETS,
            codebase_urls=["https://github.com/irgroup/ARTS"],
            reference_urls=["https://github.com/irgroup/ARTS"],
            module_type="metric",
        )

    def _download_and_prepare(self, dl_manager):
        """Build the default judge (loading its model) and pool once, as ``comet`` loads
        its checkpoint; nothing is downloaded and no judge request is sent."""
        scorer = Scorer.prepare(self.defaults, **self._built)
        if hasattr(type(scorer.judge), "encoder"):
            _ = scorer.judge.encoder  # the learned judge's sentence encoder: loaded now, not on first compute
        self._prepared = scorer

    # -- inputs ----------------------------------------------------------------
    def _feature_names(self):
        if self.selected_feature_format is not None:
            return list(self.selected_feature_format)
        if self.data is not None:  # evaluate reads the stored columns after finalising
            return list(self.data.column_names)
        return list(INPUTS)

    def _infer_feature_from_batch(self, batch):
        return _features_for(name for name, value in batch.items() if value is not None)

    def _infer_feature_from_example(self, example):
        return _features_for(name for name, value in example.items() if value is not None)

    def _select(self, names):
        features = _features_for(names)
        if self.writer is None:
            self.selected_feature_format = features
        elif set(self.selected_feature_format) != set(names):
            raise ValueError(
                f"inputs {sorted(names)} differ from those added before ({sorted(self.selected_feature_format)}): "
                "give the same inputs to every add/add_batch call"
            )

    def add_batch(self, *, predictions=None, references=None, **kwargs):
        """Add a batch of predictions (with their sources and references, if any)."""
        sources = kwargs.pop("sources", None)
        if kwargs:
            raise ValueError(f"add_batch takes predictions, sources and references; {sorted(kwargs)} go to compute()")
        batch = _check_inputs({"predictions": predictions, "sources": sources, "references": references}, len(self))
        self._select(batch)
        return super().add_batch(**batch)

    def add(self, *, prediction=None, reference=None, **kwargs):
        """Add one prediction (with its source and references, if any)."""
        example = {
            "predictions": kwargs.pop("predictions", prediction),
            "sources": kwargs.pop("sources", kwargs.pop("source", None)),
            "references": kwargs.pop("references", reference),
        }
        if kwargs:
            raise ValueError(f"add takes prediction, source and references; {sorted(kwargs)} go to compute()")
        as_batch = {k: None if v is None else [v] for k, v in example.items()}
        checked = {k: v[0] for k, v in _check_inputs(as_batch, len(self)).items()}
        self._select(checked)
        return super().add(prediction=checked.pop("predictions"), **checked)

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score ``predictions`` with ARTS (higher = harder); see the arguments below.

        After ``add``/``add_batch``, ``compute()`` scores what was added;
        ``sources=`` and ``references=`` may then still be given here when the
        added inputs lack them (aligned with everything added).
        """
        sources = kwargs.pop("sources", None)
        if predictions is None:
            if len(self) == 0:
                raise ValueError("predictions is missing: pass predictions= or add them with add()/add_batch() first")
            late = {"sources": sources, "references": references}
            for name, value in late.items():
                if value is not None and name in self.selected_feature_format:
                    raise ValueError(f"{name} were already added with add()/add_batch(); do not give them again")
            kwargs.update({f"_added_{name}": value for name, value in late.items() if value is not None})
            inputs = {}
        else:
            inputs = {"predictions": predictions, "references": references, "sources": sources}
        try:
            return super().compute(**inputs, **kwargs)
        except BaseException:
            if self.writer is None and self.data is not None:
                self._discard_added()
            raise

    def _discard_added(self):
        """After a compute() that failed once the added examples were read (a bad text,
        a bad setting), drop them and their cache files as a successful compute()
        does, so that the next call starts afresh instead of from stale inputs."""
        if self.buf_writer is not None:
            self.buf_writer = None
        else:
            for lock, path in reversed(list(zip(self.filelocks or [], self.file_paths or []))):
                if os.path.exists(path):
                    os.remove(path)
                lock.release()
        self.data = self.writer = self.selected_feature_format = None
        self.cache_file_name = self.filelock = self.file_paths = self.filelocks = None

    def _compute(
        self,
        predictions,
        sources=None,
        references=None,
        human_scores=None,
        human_higher_is="harder",
        empty=None,
        _added_sources=None,
        _added_references=None,
        **settings,
    ):
        # Every setting and its default lives in ScoringConfig (documented above);
        # load-time settings are the base, compute() arguments override them.
        ready = self._built if self._prepared is None else {"judge": self._prepared.judge, "pool": self._prepared.pool}
        keep = {}
        if not {"judge", "judge_options"} & set(settings):
            keep = {k: ready[k] for k in ("judge",) if k in ready}
            if not {"pool", "data_dir"} & set(settings) and "pool" in ready:
                keep["pool"] = ready["pool"]
        result = score_texts(
            predictions,
            sources=_added_sources if sources is None else sources,
            references=_added_references if references is None else references,
            human_scores=human_scores,
            human_higher_is=human_higher_is,
            empty=self.empty if empty is None else empty,
            config=self.defaults,
            **keep,
            **settings,
        )
        result["arts_metric_version"] = _ARTS_VERSION
        return result
