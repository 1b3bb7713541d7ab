"""evaluate's own distributed mode (num_process, process_id, experiment_id, a shared cache_dir):
two real processes each add a contiguous half of the texts, as the README shows; process 0 returns
exactly the one-process numbers, in input order."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import evaluate
import pytest

from arts_metric.evaluate_module.registry import module_script_path

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "texts.txt"

WORKER = textwrap.dedent(
    """
    import json, sys
    import evaluate

    script, rank, cache, texts_file, out = sys.argv[1:]
    texts = json.loads(open(texts_file).read())
    rank = int(rank)
    metric = evaluate.load(script, num_process=2, process_id=rank, experiment_id="scale-test", cache_dir=cache)
    for text in texts[rank * len(texts) // 2 : (rank + 1) * len(texts) // 2]:  # the documented contiguous share
        metric.add(prediction=text)
    result = metric.compute()
    json.dump(result, open(out, "w"))
    """
)


def test_two_processes_give_the_one_process_numbers(tmp_path):
    texts = [t for t in EXAMPLES.read_text(encoding="utf-8").splitlines() if t.strip()]
    texts = texts + [t + " Then it rained." for t in texts]
    (tmp_path / "texts.json").write_text(json.dumps(texts))
    (tmp_path / "worker.py").write_text(WORKER)
    cache = tmp_path / "cache"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(tmp_path / "worker.py"),
                str(module_script_path()),
                str(rank),
                str(cache),
                str(tmp_path / "texts.json"),
                str(tmp_path / f"out{rank}.json"),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-3000:]
    distributed = json.loads((tmp_path / "out0.json").read_text())
    assert json.loads((tmp_path / "out1.json").read_text()) is None  # only process 0 gets the result
    # the README's and the scale guide's way (contiguous shares): scores come back in input order
    one = evaluate.load(str(module_script_path())).compute(predictions=texts)
    assert distributed["arts"] == one["arts"]
    assert distributed["arts_elo"] == one["arts_elo"]
    assert distributed["arts_mean"] == one["arts_mean"]
    assert len(set(one["arts"])) == len(texts)  # every text its own score: an order mix-up could not hide
