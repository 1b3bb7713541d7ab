"""The judge's encoder passes as bare torch operations against the same passes calling
transformers' BERT modules, measured in the same run.

    .venv/bin/python benchmarks/encoder_forward.py [--n 1000] [--repeats 6] [--write]

Encodes ``n`` ARTS3000 texts (read from the ARTS data at run time) with
:func:`arts_metric.judges.learned.sentence_embeddings`, the learned judge's
batch-independent encoder, once with its layers run as bare torch operations on their
weights (``encoder._bert_states``, what it uses when they reproduce the modules bit for
bit) and once calling the modules (``encoder._module_states``), with one and with two
passes at once (``workers``). The two are interleaved and the best of ``repeats`` is kept
for each, so a noisy shared machine hurts them alike; the embeddings of both are checked
to be equal bit for bit. ``--write`` also writes what it prints to
``benchmarks/results/encoder_forward.md``.
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
    paths = {"bare torch operations": True, "transformers' modules": False}
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
                encoder._BERT_OPS_MATCH[model] = paths[name]  # the path the probe would otherwise choose
                start = time.perf_counter()
                values[name] = encoder.sentence_embeddings(texts, workers=workers)
                if rep:
                    best[name] = min(best[name], time.perf_counter() - start)
        same = np.array_equal(*values.values())
        bare, modules = (len(texts) / best[name] for name in paths)
        lines.append(
            f"{workers} pass(es) at once: bare torch operations {bare:7.1f} texts/s, transformers' modules "
            f"{modules:7.1f} texts/s: {bare / modules:.2f}x; embeddings equal bit for bit: {same}"
        )
        print(lines[-1], flush=True)
    encoder._BERT_OPS_MATCH.pop(model)  # the next pass probes again
    command = f"benchmarks/encoder_forward.py --n {args.n} --repeats {args.repeats}"
    text = (
        "# Encoder passes: bare torch operations against transformers' modules\n\n"
        f"Printed by `.venv/bin/python {command} --write` (see the script's docstring).\n\n```\n"
        + "\n".join(lines)
        + "\n```\n"
    )
    if args.write:
        RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
