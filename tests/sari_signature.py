"""A local metric module with SARI's signature, written at run time (the real SARI
lives on the Hugging Face Hub, which the tests cannot reach).

It takes what SARI takes (``sources``, ``predictions``, ``references``: one list
per prediction) and returns SARI's key, ``{"sari": ...}``, but computes only a
simple stand-in: the mean share of each prediction's words that appear in one of
its references, times 100. It is not SARI; it exercises the same inputs in
``evaluate.combine``.
"""

from __future__ import annotations

from pathlib import Path

from arts_metric.evaluate_module.registry import register_script

SCRIPT = '''"""SARI's signature (sources, predictions, references -> {"sari": ...}); a stand-in score."""
import datasets
import evaluate


class Sari(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="stand-in with SARI's inputs: share of prediction words found in a reference (x100)",
            citation="",
            inputs_description="sources, predictions, references (one list per prediction)",
            features=datasets.Features({
                "sources": datasets.Value("string", id="sequence"),
                "predictions": datasets.Value("string", id="sequence"),
                "references": datasets.Sequence(datasets.Value("string", id="sequence"), id="references"),
            }),
        )

    def _compute(self, sources, predictions, references):
        if not (len(sources) == len(predictions) == len(references)):
            raise ValueError("Sources length must match predictions and references lengths.")
        shares = []
        for pred, refs in zip(predictions, references):
            words = pred.lower().split()
            ref_words = {w for r in refs for w in r.lower().split()}
            shares.append(sum(w in ref_words for w in words) / max(len(words), 1))
        return {"sari": 100.0 * sum(shares) / len(shares)}
'''


def write_sari(folder: Path) -> Path:
    """Write the module as ``folder/sari/sari.py`` (loadable with ``evaluate.load(path)``)."""
    path = Path(folder) / "sari" / "sari.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SCRIPT, encoding="utf-8")
    return path


def register_sari(folder: Path, modules_root: Path) -> Path:
    """Also make the bare name ``evaluate.load("sari")`` resolve to it offline."""
    return register_script(write_sari(folder), "sari", modules_root)
