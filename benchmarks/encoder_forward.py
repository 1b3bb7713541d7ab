"""The judge's encoder passes three ways, measured in the same run: as it runs them (bare
torch operations, passes of one shape stacked in one call), each pass alone, and each pass
alone calling transformers' BERT modules.

    .venv/bin/python benchmarks/encoder_forward.py [--n 1000] [--repeats 6] [--write]

Encodes ``n`` ARTS3000 texts (read from the ARTS data at run time) with
:func:`arts_metric.judges.learned.sentence_embeddings`, the learned judge's
batch-independent encoder:

- **stacked**: its layers as bare torch operations on their weights
  (``encoder._bert_states``, what it uses when they reproduce the modules bit for bit),
  consecutive passes of one shape computed in one call of up to 1,024 word pieces
  (:func:`arts_metric.judges.learned.pass_groups`, what it does when its probe finds that
  exact);
- **each pass alone**: the same operations, one call per pass;
- **modules, each pass alone**: calling the modules (``encoder._module_states``), one call
  per pass;

with one and with two passes (or stacked calls) at once (``workers``). The three are
interleaved and the best of ``repeats`` is kept for each, so a noisy shared machine hurts
them alike; their embeddings are checked to be equal bit for bit. ``--write`` also writes
what it prints to ``benchmarks/results/encoder_forward.md``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arts_metric import data as arts_data  # noqa: E402
from arts_metric.judges.learned import encoder  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "encoder_forward.md"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=6)
    parser.add_argument("--data-dir", default=None, help="ARTS data (default $ARTS_DATA_DIR or ../shared/arts)")
    parser.add_argument("--write", action="store_true", help=f"also write the output to {RESULTS}")
    args = parser.parse_args()
    texts = [row["text"] for row in arts_data.load_pool_rows("arts3000", args.data_dir)][: args.n]
    model = encoder.load_encoder("cpu")[0].auto_model
    # (bare torch operations, stacked calls) per path: what the probes would otherwise choose
    paths = {
        "stacked": (True, True),
        "each pass alone": (True, False),
        "modules, each pass alone": (False, False),
    }
    lines = [
        f"{len(texts)} ARTS3000 texts, best of {args.repeats}, interleaved; load average "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + " at the start"
    ]
    for workers in (1, 2):
        best = {name: np.inf for name in paths}
        values = {}
        for rep in range(args.repeats + 1):  # the first round warms up and is not counted
            for name in list(paths)[:: 1 if rep % 2 else -1]:
                encoder._BERT_OPS_MATCH[model], encoder._STACKING_EXACT[model] = paths[name]
                start = time.perf_counter()
                values[name] = encoder.sentence_embeddings(texts, workers=workers)
                if rep:
                    best[name] = min(best[name], time.perf_counter() - start)
        first = next(iter(values.values()))
        same = all(np.array_equal(first, v) for v in values.values())
        speed = {name: len(texts) / best[name] for name in paths}
        lines.append(
            f"{workers} pass(es) at once: "
            + ", ".join(f"{name} {speed[name]:7.1f} texts/s" for name in paths)
            + "; stacked / each pass alone "
            + f"{speed['stacked'] / speed['each pass alone']:.2f}x, "
            + f"/ modules {speed['stacked'] / speed['modules, each pass alone']:.2f}x; "
            + f"embeddings equal bit for bit: {same}"
        )
        print(lines[-1], flush=True)
    encoder._BERT_OPS_MATCH.pop(model)  # the next pass probes again
    encoder._STACKING_EXACT.pop(model)
    command = f"benchmarks/encoder_forward.py --n {args.n} --repeats {args.repeats}"
    text = (
        "# Encoder passes: stacked, alone, and calling transformers' modules\n\n"
        f"Printed by `.venv/bin/python {command} --write` (see the script's docstring).\n\n```\n"
        + "\n".join(lines)
        + "\n```\n"
    )
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
