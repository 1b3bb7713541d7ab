"""ARTS: Assessing Readability & Text Simplicity, as a Hugging Face ``evaluate`` metric.

Needs the ``arts-metric`` package (``pip install arts-metric``); this script is a
thin shell around :func:`arts_metric.scoring.score_texts`. Its settings (pool,
judge, formulas, placement, long texts, ...) and their defaults are
:class:`arts_metric.config.ScoringConfig`'s, documented from there.
"""

import datasets
import evaluate

from arts_metric import __version__ as _ARTS_VERSION
from arts_metric.config import ScoringConfig
from arts_metric.scoring import score_texts, validate_texts

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

_KWARGS_DESCRIPTION = """
Args:
    predictions (list of str): texts to score (e.g. system outputs).
    sources (list of str, optional): the texts before simplification, aligned
        with `predictions`; adds `source_*` scores and `arts_delta`.
    human_scores (list of float, optional): human difficulty judgments of the
        predictions; adds `correlation` (Pearson, Spearman, Kendall, p-values)
        for every reported metric, signed so positive = agrees with humans.
    human_higher_is ("harder" | "simpler", default "harder"): direction of
        `human_scores`.
""" + ScoringConfig.docstring() + """
Returns:
    arts (list of float in [0, 1], higher = harder), arts_elo (list of float,
    unbounded, pool's Elo scale), arts_interval (per text [low, high], 95%),
    arts_mean (float) and arts_mean_interval, fkgl / fre / dale_chall
    (lists; FRE is higher = easier), units (pieces per text), judge_calls,
    invalid, judge, pool, placement; with sources: source_arts, source_arts_elo,
    source_<formula>, arts_delta (source_arts - arts: positive = output easier),
    arts_delta_mean; with human_scores: correlation.
Examples:
    >>> arts = evaluate.load("arts")
    >>> out = arts.compute(predictions=["The cat sat on the mat.",
    ...     "Notwithstanding the foregoing, the lessee shall indemnify the lessor."])
    >>> out["arts"][0] < out["arts"][1]
    True
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ARTS(evaluate.Metric):
    """ARTS: pairwise judge + Elo + rank score against a frozen reference pool."""

    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            # `sources` and `human_scores` travel as keyword arguments: evaluate
            # only ever reads the first feature set, and both are optional.
            features=datasets.Features({"predictions": datasets.Value("string")}),
            codebase_urls=["https://github.com/irgroup/ARTS"],
            reference_urls=["https://github.com/irgroup/ARTS"],
            module_type="metric",
        )

    def compute(self, *, predictions=None, references=None, **kwargs):
        """Score ``predictions`` with ARTS (higher = harder); see the arguments below.
        """
        # Validate before evaluate converts the inputs to Arrow, so that a bad
        # item is reported by its index instead of as a casting error.
        if predictions is not None:
            predictions = validate_texts(predictions, "predictions")
        if kwargs.get("sources") is not None:
            kwargs["sources"] = validate_texts(kwargs["sources"], "sources")
            if len(kwargs["sources"]) != len(predictions or []):
                raise ValueError(
                    f"sources has {len(kwargs['sources'])} items but predictions has {len(predictions or [])}"
                )
        if references is not None:
            raise ValueError("ARTS takes no references; pass the texts before simplification as sources=")
        return super().compute(predictions=predictions, **kwargs)

    def _compute(self, predictions, sources=None, human_scores=None, human_higher_is="harder", **settings):
        # Every setting and its default lives in ScoringConfig (documented above).
        config = ScoringConfig.from_settings(settings)
        result = score_texts(
            predictions, sources=sources, human_scores=human_scores, human_higher_is=human_higher_is, config=config
        )
        result["arts_metric_version"] = _ARTS_VERSION
        return result
