"""The scores of a fixed set of texts, kept: a change that moves code (or is meant to change
nothing) keeps every value ``compute`` gives. The reference is this package's own output on
``examples/texts.txt`` (sentences), the six joined into a paragraph, and that paragraph with one
sentence more, each against the paragraph as its source: ``tests/data/scores_kept.json``.

A change meant to move scores regenerates it, and says so in its commit:

    .venv/bin/python tests/test_scores_kept.py --write
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
KEPT = REPO / "tests" / "data" / "scores_kept.json"
FORMULAS = ["fkgl", "fre", "dale_chall", "smog"]


def current() -> dict:
    """What ``score_texts`` gives now on the fixed texts, as JSON would store it."""
    from arts_metric import score_texts

    texts = (REPO / "examples" / "texts.txt").read_text(encoding="utf-8").splitlines()
    paragraph = " ".join(texts)
    predictions = texts + [paragraph, f"{paragraph} {texts[0]}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = score_texts(
            predictions, sources=[paragraph] * len(predictions), return_sentences=True, formulas=FORMULAS
        )
    out.pop("arts_signature")  # names the release; the values are what is kept
    return json.loads(json.dumps(out, sort_keys=True, default=str))


def _same(a, b, path: str = "") -> list[str]:
    """Where ``a`` and ``b`` differ (floats to within 1e-9: other CPUs round the encoder differently)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in _same(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items, kept {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _same(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if math.isclose(a, b, rel_tol=0, abs_tol=1e-9) else [f"{path}: {a!r}, kept {b!r}"]
    return [] if a == b else [f"{path}: {a!r}, kept {b!r}"]


def test_compute_keeps_the_scores_of_sentences_and_paragraphs():
    kept = json.loads(KEPT.read_text(encoding="utf-8"))
    differences = _same(current(), kept)
    assert not differences, "\n".join(differences[:20])


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        KEPT.write_text(json.dumps(current(), sort_keys=True, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {KEPT}")
    else:
        print(__doc__)
