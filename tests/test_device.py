"""The learned judge's device and CPU threads: auto/cpu/cuda, a thread count that never
oversubscribes the cores (also in score_dataset's worker processes), and scores that do not
depend on the thread count, bit for bit (each encoder pass runs on one torch thread; the
thread count is how many passes run at once)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from datasets import Dataset

from arts_metric.device import cpu_threads, limit_threads, resolve_device, usable_cores
from arts_metric.judges.learned import LearnedJudge
from arts_metric.scoring.bulk import score_dataset
from arts_metric.scoring.scorer import Scorer

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "texts.txt"


def test_resolve_device():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    for bad in ("gpu", "cuda:x", "", None):
        with pytest.raises(ValueError, match="device must be"):
            resolve_device(bad)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no CUDA GPU"):
            resolve_device("cuda")
        with pytest.raises(ValueError, match="sees no CUDA GPU"):
            LearnedJudge(device="cuda:0")


def test_cpu_threads_never_exceed_a_process_share_of_the_cores():
    cores = usable_cores()
    assert cpu_threads() == cores  # one process uses every core it may
    assert cpu_threads(64) == cores
    for processes in (1, 2, 3, cores, 4 * cores):
        share = max(1, cores // processes)
        assert cpu_threads(processes=processes) <= share
        assert cpu_threads(64, processes) == share
        assert processes * cpu_threads(64, processes) <= max(cores, processes)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="threads must be"):
            cpu_threads(bad)
        with pytest.raises(ValueError, match="threads must be"):
            LearnedJudge(threads=bad)


def test_limit_threads_restores_the_callers_count():
    before = torch.get_num_threads()
    with limit_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


class RecordingJudge(LearnedJudge):
    """The learned judge, appending how many encoder passes it runs at once to a file at every
    encoder call."""

    def __init__(self, record: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.record = record

    def _represent(self, texts):
        with open(self.record, "a") as fh:
            fh.write(f"{self.threads_in_use}\n")
        return super()._represent(texts)


def _texts() -> list[str]:
    return [t for t in EXAMPLES.read_text(encoding="utf-8").splitlines() if t.strip()]


def test_judge_encodes_with_its_thread_count_and_scores_do_not_change(tmp_path):
    record = tmp_path / "threads.txt"
    texts = _texts()
    scores = {}
    for threads in (1, 2, 3):
        judge = RecordingJudge(str(record), threads=threads)
        scores[threads] = judge.score(texts)
        assert judge.threads_in_use == min(threads, usable_cores())
    seen = [int(x) for x in record.read_text().split()]
    assert seen == [min(t, usable_cores()) for t in (1, 2, 3)]
    assert np.array_equal(scores[1], scores[2]) and np.array_equal(scores[1], scores[3])


def test_score_dataset_workers_share_the_cores(tmp_path):
    """num_proc=2: each worker encodes with at most cores // 2 threads, even when the judge asks for more."""
    record = tmp_path / "threads.txt"
    judge = RecordingJudge(str(record), threads=64)
    texts = _texts() * 3
    one = score_dataset(Dataset.from_dict({"text": texts}), judge=judge, batch_size=4)
    record.unlink()
    two = score_dataset(Dataset.from_dict({"text": texts}), judge=judge, batch_size=4, num_proc=2)
    seen = [int(x) for x in record.read_text().split()]
    assert seen and max(seen) <= max(1, usable_cores() // 2), seen
    assert judge.processes == 1  # the caller's judge is left as it was
    assert one["arts"] == two["arts"] and one["arts_elo"] == two["arts_elo"]


def test_signature_names_a_device_other_than_the_cpu():
    judge = LearnedJudge(device="cpu")
    cpu_signature = Scorer.prepare(judge=judge).signature
    assert "@" not in cpu_signature
    judge.device = "cuda"  # what device="cuda" gives where a GPU is present
    assert "judge:learned-4@cuda|" in Scorer.prepare(judge=judge).signature


def test_judge_options_carry_device_and_threads():
    from arts_metric.scoring.config import ScoringConfig

    judge = ScoringConfig(judge_options={"device": "cpu", "threads": "1"}).make_judge()
    assert (judge.device, judge.threads, judge.threads_in_use) == ("cpu", 1, 1)
    assert json.dumps(judge.signature) == json.dumps("learned-4")


def test_cli_threads_and_device_options(tmp_path):
    import subprocess
    import sys

    arts = str(Path(sys.executable).with_name("arts"))

    def run(*extra):
        return subprocess.run(
            [arts, "score", str(EXAMPLES), "--no-progress", *extra], capture_output=True, text=True, timeout=600
        )

    default, pinned = run(), run("--threads", "1", "--device", "cpu")
    assert default.returncode == 0 and pinned.returncode == 0, pinned.stderr[-2000:]
    assert pinned.stdout == default.stdout  # the thread count never changes a score
    wrong = run("--threads", "2", "--judge", "openai:gpt-4o")
    assert wrong.returncode != 0 and "--threads apply to the learned judge" in wrong.stderr
    zero = run("--threads", "0")
    assert zero.returncode != 0 and "--threads must be a positive integer" in zero.stderr


def test_every_pass_runs_on_one_torch_thread_and_the_callers_count_is_restored(monkeypatch):
    from arts_metric.judges.learned import encoder

    seen = []
    forward = encoder.hidden_states  # run once in every pass, in the thread that runs it

    def recording_forward(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return forward(*args, **kwargs)

    monkeypatch.setattr(encoder, "hidden_states", recording_forward)
    before = torch.get_num_threads()
    with limit_threads(2):
        encoder.sentence_embeddings(_texts() * 4, workers=2)
        assert torch.get_num_threads() == 2
    assert torch.get_num_threads() == before
    assert seen and set(seen) == {1}


def test_300_texts_score_the_same_bit_for_bit_with_1_2_and_4_threads(data_dir):
    from arts_metric.data import load_pool_rows
    from arts_metric.judges.learned import encoder

    rows = load_pool_rows("arts3000", data_dir)
    texts = [rows[i]["text"] for i in range(0, 3000, 10)] + [
        "The lessee shall indemnify the lessor against all liabilities arising hereunder."
    ]
    assert len(texts) == 301
    vectors = {w: encoder.sentence_embeddings(texts, workers=w) for w in (1, 2, 4)}
    assert np.array_equal(vectors[1], vectors[2]) and np.array_equal(vectors[1], vectors[4])
    # the judge at the thread counts this machine allows (at most its cores), and v2's layers
    for version in ("v1", "v2", "v3", "v4"):
        scores = [LearnedJudge(version, threads=t).score(texts) for t in (1, 2, 4)]
        assert np.array_equal(scores[0], scores[1]) and np.array_equal(scores[0], scores[2])
