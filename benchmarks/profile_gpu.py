"""Where the time of the GPU scoring path goes, beside bare encoding of the same texts on
the same GPU, in one run.

    python benchmarks/profile_gpu.py [--sentences 8192] [--paragraphs 4096] [--batch 2048]

Texts: those of ``benchmarks/gpu.py`` (sentences of the ARTS3000 pool and the
development sets, paragraphs of four of their sentences). Per kind, ``place_texts`` with
the learned judge on ``cuda`` in calls of ``--batch`` texts, each stage timed by wrapping
the function that does it (wall clock; the GPU is synchronised at the end of the encoder
stage, so GPU time counts there): encoder (tokenising and MiniLM's passes), features,
judge head (the kernel head and the rest of the judge's ``score``), segmentation and
placement (the rest of ``place_texts``). Then sentence-transformers' ``encode`` of the same
texts (paragraphs: their sentences) on the same GPU in batches of 512, and the ratio.
Needs a CUDA GPU.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import _paragraphs, _sentences  # noqa: E402  (the texts of benchmarks/gpu.py)

from arts_metric.judges.learned import judge as learned_judge  # noqa: E402
from arts_metric.scoring import units  # noqa: E402

#: (stage, owner, attribute) wrapped; the judge's own time less the encoder and features is its head.
STAGES = (
    ("judge", learned_judge.LearnedJudge, "score"),
    ("encoder", learned_judge.LearnedJudge, "_represent"),
    ("features", learned_judge, "text_features"),
    ("segmentation", units, "_units"),
)


@contextlib.contextmanager
def timed_stages(spent: dict[str, float], sync: Any) -> Iterator[None]:
    """Wrap every function of :data:`STAGES` so that its wall time adds to ``spent[stage]``;
    ``sync()`` runs at the end of the encoder stage."""
    saved = []

    def wrap(stage: str, fn: Any) -> Any:
        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                out = fn(*args, **kwargs)
                if stage == "encoder":
                    sync()
                return out
            finally:
                spent[stage] += time.perf_counter() - start

        return timed

    for stage, owner, name in STAGES:
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, wrap(stage, getattr(owner, name)))
    try:
        yield
    finally:
        for owner, name, fn in reversed(saved):
            setattr(owner, name, fn)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=8192)
    parser.add_argument("--paragraphs", type=int, default=4096)
    parser.add_argument("--batch", type=int, default=2048)
    args = parser.parse_args()

    import torch

    from arts_metric.judges.learned import LearnedJudge, embed_texts
    from arts_metric.scoring.scorer import Scorer
    from arts_metric.text.sentences import sentence_units

    if not torch.cuda.is_available():
        raise SystemExit("benchmarks/profile_gpu.py needs a CUDA GPU")
    scorer = Scorer.prepare(judge=LearnedJudge(device="cuda", progress=False))
    kinds = {"sentences": _sentences(args.sentences, repeat=True), "paragraphs": _paragraphs(args.paragraphs)}
    print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; {args.batch} texts a call", flush=True)
    for kind, texts in kinds.items():
        units.place_texts(texts[: args.batch], scorer, label="warm-up")
        spent: dict[str, float] = defaultdict(float)
        with timed_stages(spent, torch.cuda.synchronize):
            start = time.perf_counter()
            for s in range(0, len(texts), args.batch):
                units.place_texts(texts[s : s + args.batch], scorer, label="benchmark")
            total = time.perf_counter() - start
        stages = {
            "encoder": spent["encoder"],
            "features": spent["features"],
            "judge head": spent["judge"] - spent["encoder"] - spent["features"],
            "segmentation": spent["segmentation"],
            "placement": total - spent["judge"] - spent["segmentation"],
        }
        rows = texts if kind == "sentences" else [u for t in texts for u in sentence_units(t)]
        embed_texts(rows[:512], device="cuda", batch_size=512)
        start = time.perf_counter()
        embed_texts(rows, device="cuda", batch_size=512)
        bare = time.perf_counter() - start
        n = len(texts)
        print(
            f"{kind}: scoring {n / total:,.0f}/s, bare encoding (batches of 512) {n / bare:,.0f}/s, "
            f"scoring / bare {bare / total:.2f}x; ms per text: "
            + ", ".join(f"{stage} {1000 * sec / n:.3f}" for stage, sec in stages.items()),
            flush=True,
        )


if __name__ == "__main__":
    main()
