"""Where the time of one ``compute()`` call goes: encoder, features, placement, formulas,
checks and the rest.

    .venv/bin/python benchmarks/profile_compute.py [--n 1000] [--paragraphs 300] [--repeats 3]

Two calls of ``evaluate.load(<module script>).compute`` at the defaults (learned judge,
arts3000 pool, FKGL, FRE and Dale-Chall): ``n`` ARTS3000 texts (read from the ARTS data
at run time) and ``paragraphs`` Cochrane abstracts and plain-language summaries of 50-300
words and SciTLDR abstracts (read from ``../shared/dev`` or ``$ARTS_DEV_DIR``). Each stage is timed by
wrapping the function that does it (wall clock, so the encoder's parallel passes
count once), and the best of ``repeats`` calls is shown:

- **encoder**: MiniLM reading the judge units (``LearnedJudge._represent``);
- **features**: the judge's text features (``text_features``);
- **judge head**: the rest of ``LearnedJudge.score`` (preparing the units, the
  kernel head);
- **segmentation**: cutting texts into sentences (``units._units``);
- **placement**: the rest of ``place_texts`` (Elo placement against the pool,
  combining a text's sentences, intervals);
- **formulas**: FKGL, FRE and Dale-Chall (``compute_formulas``);
- **checks**: the language and script checks (``script_warning``, ``_warn_formulas``);
- **other**: everything else in ``compute`` (input checks, evaluate's own
  bookkeeping, building the result).

``--write`` also writes what it prints to ``benchmarks/results/profile_compute.md``.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator

import evaluate

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric.evaluate_module.registry import module_script_path  # noqa: E402
from arts_metric.judges.learned import judge as learned_judge  # noqa: E402
from arts_metric.scoring import assemble, batch, units  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "profile_compute.md"

#: (stage, module, attribute, stage it is part of): the time of a part is taken out of its parent.
STAGES: tuple[tuple[str, Any, str, str | None], ...] = (
    ("judge", learned_judge.LearnedJudge, "score", "placement"),
    ("encoder", learned_judge.LearnedJudge, "_represent", "judge"),
    ("features", learned_judge, "text_features", "judge"),
    ("segmentation", units, "_units", "placement"),
    ("placement", batch, "place_texts", None),
    ("formulas", assemble, "compute_formulas", None),
    ("checks", batch, "script_warning", None),
    ("checks", assemble, "_warn_formulas", None),
)


@contextlib.contextmanager
def timed_stages(spent: dict[str, float]) -> Iterator[None]:
    """Wrap every function of :data:`STAGES` so that its wall time adds to ``spent[stage]``."""
    saved = []

    def wrap(stage: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[stage] += time.perf_counter() - t0

        return timed

    for stage, owner, name, _ in STAGES:
        original = getattr(owner, name)
        saved.append((owner, name, original))
        setattr(owner, name, wrap(stage, original))
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)


def profile(metric: Any, texts: list[str], repeats: int) -> tuple[dict[str, float], float]:
    """Exclusive seconds per stage of the fastest of ``repeats`` calls, and that call's total."""
    best: tuple[dict[str, float], float] | None = None
    for _ in range(repeats):
        spent: dict[str, float] = defaultdict(float)
        with timed_stages(spent):
            t0 = time.perf_counter()
            metric.compute(predictions=texts)
            total = time.perf_counter() - t0
        if best is None or total < best[1]:
            best = (dict(spent), total)
    assert best is not None
    spent, total = best
    exclusive = dict(spent)
    for stage, _, _, parent in STAGES:
        if parent is not None and stage in spent and exclusive.get(stage) is not None:
            exclusive[parent] = exclusive.get(parent, 0.0) - spent[stage]
    exclusive["judge head"] = exclusive.pop("judge", 0.0)
    top = {stage for stage, _, _, parent in STAGES if parent is None}
    exclusive["other"] = total - sum(spent.get(stage, 0.0) for stage in top)
    return exclusive, total


def table(title: str, n: int, exclusive: dict[str, float], total: float) -> list[str]:
    order = ["encoder", "features", "judge head", "segmentation", "placement", "formulas", "checks", "other"]
    lines = [
        f"### {title}",
        "",
        f"{n} texts, {total:.2f} s, {n / total:.1f} texts/s",
        "",
        "| stage | ms per text | share |",
        "|---|---|---|",
    ]
    for stage in order:
        sec = exclusive.get(stage, 0.0)
        lines.append(f"| {stage} | {1000 * sec / n:.3f} | {sec / total:.0%} |")
    lines.append("")
    return lines


def main() -> None:
    from throughput import benchmark_texts, text_arguments  # the texts of benchmarks/throughput.py

    args = text_arguments(__doc__.splitlines()[0], RESULTS)
    load = os.getloadavg()
    texts, paragraphs = benchmark_texts(args)
    metric = evaluate.load(str(module_script_path()))
    metric.compute(predictions=texts[:32])  # loads the model, the dictionaries and the pool

    lines = [
        "# Profile of one compute() call",
        "",
        f"Printed by `benchmarks/profile_compute.py`: best of {args.repeats} calls, wall time per stage "
        f"(see the script's docstring); {os.cpu_count()} cores, load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at the start.",
        "",
    ]
    lines += table("ARTS3000 sentences", len(texts), *profile(metric, texts, args.repeats))
    lines += table("Cochrane and SciTLDR paragraphs", len(paragraphs), *profile(metric, paragraphs, args.repeats))
    out = "\n".join(lines)
    print(out)
    if args.write:
        RESULTS.write_text(out + "\n")


if __name__ == "__main__":
    main()
