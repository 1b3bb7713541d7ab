"""README++ validation sentences in Arabic, French, Hindi and Russian: Spearman of
``arts`` (``language=<code>``: that language's pool and offline judge) with the human
CEFR rating, beside length in characters, length in words and every published formula
of the language, in one run.

Set (read at run time from ``../shared/dev/readmepp`` or ``$ARTS_DEV_DIR``): the
validation split of README++ (Naous et al. 2024, MIT), human CEFR levels 1-6 (A1-C2).
The judges were trained on the train split only; the pools hold the train and
validation sentences (a validation sentence's own pool rating moves its ``arts`` by at
most one pool position in about 1,500, and the human rating never enters the judge).

Also reported: each English default's Spearman on the same sentences (``language``
not given: the English pool and judge), the measure these languages had before.

Writes ``benchmarks/results/languages.md``::

    .venv/bin/python benchmarks/languages.py [--dev-dir DIR] [--languages ar,fr,hi,ru]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric.languages import OTHER_LANGUAGES, language_name  # noqa: E402
from arts_metric.languages.formulas import LANGUAGE_FORMULAS  # noqa: E402
from arts_metric.languages.readmepp import readmepp_rows  # noqa: E402
from arts_metric.scoring.api import score_texts  # noqa: E402

OUT = REPO / "benchmarks" / "results" / "languages.md"


def evaluate(code: str, dev_dir: str | None, english: bool) -> dict:
    rows = readmepp_rows(code, "val", dev_dir)
    texts = [r["sentence"] for r in rows]
    human = np.array([r["rating"] for r in rows], dtype=float)
    t0 = time.time()
    out = score_texts(texts, human_scores=human, language=code)
    seconds = time.time() - t0
    row = {
        "language": code,
        "n": len(texts),
        "arts": out["correlation"]["arts"]["spearman"],
        "chars": spearmanr([len(t) for t in texts], human)[0],
        "words": spearmanr([len(t.split()) for t in texts], human)[0],
        "formulas": {f: out["correlation"][f]["spearman"] for f in LANGUAGE_FORMULAS[code]},
        "seconds": seconds,
    }
    if english:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the script warning is the point: English on other languages
            en = score_texts(texts, human_scores=human, formulas=[])
        row["arts_en"] = en["correlation"]["arts"]["spearman"]
    return row


def table(rows: list[dict]) -> str:
    lines = [
        "| language | n | `arts` (language=) | length in characters | length in words | formulas | "
        "`arts` gain over characters | `arts`, English default |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        formulas = ", ".join(f"{f} {abs(v):.3f}" for f, v in r["formulas"].items()) or "none published"
        en = f"{r['arts_en']:.3f}" if "arts_en" in r else "not run"
        lines.append(
            f"| {language_name(r['language'])} | {r['n']} | **{r['arts']:.3f}** | {r['chars']:.3f} | {r['words']:.3f} "
            f"| {formulas} | {r['arts'] - r['chars']:+.3f} | {en} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dev-dir", default=None)
    parser.add_argument("--languages", default=",".join(OTHER_LANGUAGES))
    parser.add_argument("--no-english", action="store_true", help="skip the English default's column")
    args = parser.parse_args(argv)
    rows = [evaluate(c.strip(), args.dev_dir, not args.no_english) for c in args.languages.split(",")]
    body = table(rows)
    print(body)
    timing = ", ".join(f"{r['language']} {r['seconds']:.0f}" for r in rows)
    goal = all(r["arts"] >= 0.80 and r["arts"] - r["chars"] >= 0.05 for r in rows)
    OUT.write_text(
        "# Other languages: README++ validation sentences\n\n"
        "Written by `benchmarks/languages.py`. Spearman with the human CEFR rating (1-6) on each\n"
        "language's validation split; formulas are given as |Spearman| (they are higher = easier).\n"
        "The judges were fitted on the train splits only.\n\n"
        f"{body}\n\n"
        f"Goal (`arts` >= .80 and >= .05 above length in characters in every language): "
        f"{'met' if goal else 'not met'}.\n"
        f"Seconds to score each split: {timing}.\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    main()
