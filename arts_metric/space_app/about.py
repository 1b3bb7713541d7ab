"""The files a Space shows beside its app (examples, the metric card, the agreement
tables) and the About tab made from them, with how long texts are scored."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from arts_metric.judges.learned import DEFAULT_VERSION


@dataclass(frozen=True)
class SpaceFiles:
    """Where the app finds what it shows, relative to ``root``: the folder of ``app.py``
    (a checkout, or a Space folder assembled by ``arts publish-space``)."""

    root: Path

    @property
    def examples(self) -> Path:
        """The example inputs (``examples/``)."""
        return self.root / "examples"

    @property
    def card(self) -> Path:
        """The metric card: ``metric_card.md`` in a checkout, ``README.md`` in a Space."""
        return next(
            (p for p in (self.root / "metric_card.md", self.root / "README.md") if p.is_file()),
            self.root / "metric_card.md",
        )

    @property
    def agreement(self) -> Path:
        """The learned judges' measured agreement with human raters."""
        return self.root / "benchmarks" / "results" / "learned_judge_accuracy.md"

    @property
    def documents(self) -> Path:
        """How documents are scored, measured on texts written at known levels."""
        return self.root / "benchmarks" / "results" / "documents.md"

    @property
    def judge_probes(self) -> Path:
        """What the judge reads beyond a sentence's length, against the formulas and word count."""
        return self.root / "benchmarks" / "results" / "judge_probes.md"

    @property
    def all_approaches(self) -> Path:
        """Every approach's agreement, beside the ARTS paper's Table 3."""
        return self.root / "benchmarks" / "results" / "arts94_metrics.md"


#: The About tab's account of how texts of several sentences, up to whole documents, are scored.
LONG_TEXTS = (
    "A text of several sentences, up to a whole document, is cut into its sentences, and each sentence is "
    "placed in the reference pool on its own. The text's rating is the mean of its sentences' ratings "
    "**weighted by their words**, and its `arts` is that rating's position in the pool (about the share of "
    "pool texts rated below it). "
    "A document's score therefore says **how hard its language is, not how much there is to read**: a text "
    "written twice scores as the text once, and two texts joined score between the two.\n\n"
    "To see which sentences make a text hard, the *Score texts* tab shows each text of several sentences "
    "sentence by sentence below the scores, its hardest sentence marked; in the package, "
    "`score_texts(..., return_sentences=True)` (or `compute(..., return_sentences=True)`) gives the same, "
    "and on the command line `arts score --sentences`.\n\n"
    'The rule of release 0.2 is still there as `long_texts="team"`: a text longer than `split_above` '
    "characters is rated as the team of its sentences, so that more to read rates harder."
)


#: The folder holding the package: a checkout, or a Space folder (the package ships beside app.py).
DEFAULT_FILES = SpaceFiles(Path(__file__).resolve().parents[2])


def _without_front_matter(text: str) -> str:
    return re.sub(r"^---\n.*?\n---\n", "", text, count=1, flags=re.S)


def card_section(title: str, files: SpaceFiles = DEFAULT_FILES) -> str:
    """One ``## title`` section of the metric card (without its heading)."""
    text = _without_front_matter(files.card.read_text(encoding="utf-8"))
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    return match.group(1).strip() if match else ""


#: Paragraphs of a benchmark report that speak to its developers (model-selection settings,
#: timings, how to regenerate it), left out of the About tab.
INTERNALS = re.compile(r"CV choice|Regenerate|\.py\b|\bs for \d+ texts|^Three formulas", re.M)


def _results(path: Path, root: Path) -> str:
    """A benchmark's Markdown report without its title line and its developer notes (:data:`INTERNALS`)."""
    if not path.is_file():
        return f"_{path.relative_to(root)} is missing from this folder (`arts publish-space` copies it)._"
    body = path.read_text(encoding="utf-8").split("\n", 1)[1].strip()
    return "\n\n".join(p for p in re.split(r"\n\s*\n", body) if not INTERNALS.search(p))


def _summary(path: Path, root: Path, intro: str) -> str:
    """``intro`` and the ``## Summary`` section of a benchmark report, or a note when the file or
    the section is missing."""
    if not path.is_file():
        return f"_{path.relative_to(root)} is missing from this folder (`arts publish-space` copies it)._"
    match = re.search(r"^## Summary\n(.*?)(?=^## |\Z)", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    return intro + match.group(1).strip() if match else f"_{path.relative_to(root)} has no summary._"


def documents_summary(files: SpaceFiles = DEFAULT_FILES) -> str:
    """The summary of ``benchmarks/results/documents.md`` (each criterion for documents, release 0.2's
    figure, the default's and the best formula's), or a note that the file is missing."""
    return _summary(
        files.documents,
        files.root,
        "Measured on texts written by people at known levels (Cochrane abstracts and their plain-language "
        "summaries, OneStopEnglish news at three levels, SciTLDR abstracts and one-sentence summaries):\n\n",
    )


def judge_summary(files: SpaceFiles = DEFAULT_FILES) -> str:
    """The summary of ``benchmarks/results/judge_probes.md``: what the default judge reads beyond a
    sentence's length, beside the judges of earlier releases, the formulas and word count."""
    return _summary(
        files.judge_probes,
        files.root,
        "What the judge reads beyond a sentence's length, sentence by sentence (expert summaries, medical "
        "abstracts, README++ sentences from 112 domains with their human CEFR level, the ARTS94 raters, "
        "simplifications people compared), beside the judges of releases up to 0.4 (learned-1) and of 0.5 and 0.6 "
        "(learned-3):\n\n",
    )


def about_markdown(files: SpaceFiles = DEFAULT_FILES) -> tuple[str, str, str, str]:
    """The About tab: the learned judges' agreement with humans, every approach's, how to cite, the card."""
    agreement = (
        f"This app's judge is the shipped default, `learned:{DEFAULT_VERSION}`.\n\n"
        + judge_summary(files)
        + "\n\n"
        + _results(files.agreement, files.root)
    )
    cite = card_section("Citation", files)
    card = _without_front_matter(files.card.read_text(encoding="utf-8")) if files.card.is_file() else ""
    # the card's map of the source code is for developers
    card = re.sub(r"^## Where the code lives\n.*?(?=^## |\Z)", "", card, flags=re.S | re.M)
    return agreement, _results(files.all_approaches, files.root), cite, card
