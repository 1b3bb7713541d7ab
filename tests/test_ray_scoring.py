"""Scoring on a real local Ray cluster (2 CPUs): the same numbers as one process, bit for bit,
whatever the actors, batch sizes and shards; a killed actor loses and duplicates no row; a rerun
skips written shards; bad input is named by file and line as `arts score` names it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import ray  # the `ray` extra, installed by scripts/install.sh: a missing Ray fails here, never skips
from datasets import Dataset

from arts_metric.distributed import score_files, score_ray_dataset
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.bulk import score_dataset

# One test process runs them all: two local clusters on one machine starve each other's actors.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]
ARTS = str(Path(sys.executable).with_name("arts"))
COLS = ["arts", "arts_elo", "interval", "judge_calls"]
RUN = {"capture_output": True, "text": True, "timeout": 600}


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    ctx = ray.data.DataContext.get_current()
    ctx.enable_progress_bars = False
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def texts(data_dir) -> list[str]:
    """30 sentences and 2 paragraphs (cut into sentence units) of the development set."""
    dev = Path(data_dir).parent / "dev" / "onestopenglish_dev.jsonl"
    assert dev.is_file(), f"development set missing: {dev}"
    docs = [json.loads(line)["text"] for line in dev.read_text(encoding="utf-8").splitlines()[:6]]
    docs = [" ".join(d.split()) for d in docs]  # one line each (the files hold one text per line)
    sentences = [s for d in docs for s in d.split(". ") if len(s) > 20][:30]
    return sentences + [d[:900] for d in docs[:2]]


@pytest.fixture(scope="module")
def reference(texts) -> pd.DataFrame:
    return score_dataset(Dataset.from_dict({"text": texts})).to_pandas()


def _same(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert len(got) == len(want)
    for col in COLS:
        a, b = list(got[col]), list(want[col])
        if col == "interval":
            assert [None if x is None else list(x) for x in a] == [None if x is None else list(x) for x in b]
        else:
            assert np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float)), col


def _write_jsonl(path: Path, texts: list[str]) -> Path:
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)), encoding="utf-8")
    return path


def _read_out(out: Path) -> pd.DataFrame:
    parts = sorted(out.glob("part-*"))
    # json.loads, not pandas' JSON reader: that one rounds floats in the last digit.
    frames = [
        pd.read_parquet(p)
        if p.suffix == ".parquet"
        else pd.DataFrame([json.loads(line) for line in p.read_text(encoding="utf-8").splitlines()])
        for p in parts
    ]
    return pd.concat(frames, ignore_index=True)


def test_same_numbers_alone_compute_num_proc_and_ray(cluster, texts, reference):
    import evaluate

    from arts_metric.evaluate_module.registry import module_script_path

    alone = [score_texts([t]) for t in texts]
    assert [r["arts"][0] for r in alone] == list(reference["arts"])
    assert [r["arts_elo"][0] for r in alone] == list(reference["arts_elo"])
    computed = evaluate.load(str(module_script_path())).compute(predictions=texts)
    assert list(computed["arts"]) == list(reference["arts"])
    _same(score_dataset(Dataset.from_dict({"text": texts}), num_proc=2, batch_size=5).to_pandas(), reference)
    frame = pd.DataFrame({"id": range(len(texts)), "text": texts})
    for actors, batch_size, blocks in ((1, 7, 1), (2, 5, 4), (2, 32, 2)):
        # Blocks made by the driver: a read or repartition task would need a CPU that the actors hold.
        n = len(frame)
        ds = cluster.data.from_pandas([frame.iloc[k * n // blocks : (k + 1) * n // blocks] for k in range(blocks)])
        got = score_ray_dataset(ds, actors=actors, batch_size=batch_size).to_pandas().sort_values("id")
        _same(got.reset_index(drop=True), reference)


def test_files_engine_matches_one_process(cluster, texts, reference, tmp_path):
    src = _write_jsonl(tmp_path / "in.jsonl", texts)
    counts = score_files([str(src)], str(tmp_path / "out"), shard_rows=7, actors=2, fmt="jsonl")
    signature = counts.pop("signature")
    stats = counts.pop("judge_stats")  # the learned judge's, summed over the actors: no requests
    assert stats["requests"] == 0 and stats["calls"] >= len(texts)
    assert counts == {"shards": 5, "skipped": 0, "rows": len(texts), "rows_scored": len(texts)}
    assert signature == score_texts(texts[:1])["arts_signature"]
    got = _read_out(tmp_path / "out").sort_values("source_line").reset_index(drop=True)
    assert list(got["id"]) == list(range(len(texts)))
    assert list(got["source_line"]) == list(range(1, len(texts) + 1))
    _same(got, reference)


def _shard_scorer_pids() -> list[int]:
    """This cluster's ShardScorer actor processes (children of its raylet)."""
    raylet = ray._private.worker._global_node.all_processes["raylet"][0].process.pid
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace")
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == raylet and "ShardScorer" in cmd:
            pids.append(int(entry))
    return pids


def test_killed_actor_loses_and_duplicates_no_row(cluster, texts, reference, tmp_path):
    src = _write_jsonl(tmp_path / "in.jsonl", texts)
    out = tmp_path / "out"
    killed: list[int] = []

    def kill_one() -> None:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and not killed:
            pids = _shard_scorer_pids()
            if pids and any(out.glob("part-*")):  # actors are busy: a shard is written, others in flight
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])
            time.sleep(0.05)

    killer = threading.Thread(target=kill_one)
    killer.start()
    counts = score_files([str(src)], str(out), shard_rows=2, actors=2, fmt="parquet")
    killer.join()
    assert killed, "no actor was killed: the test did not test a failure"
    assert counts["rows_scored"] == len(texts)
    got = _read_out(out)
    assert sorted(got["id"]) == list(range(len(texts)))  # every row once
    _same(got.sort_values("id").reset_index(drop=True), reference)


def test_rerun_skips_written_shards(cluster, texts, tmp_path):
    src = _write_jsonl(tmp_path / "in.jsonl", texts)
    out = tmp_path / "out"
    first = score_files([str(src)], str(out), shard_rows=10, actors=1)
    assert first["shards"] == 4 and first["skipped"] == 0
    kept = {p.name: p.stat().st_mtime_ns for p in out.glob("part-*")}
    (out / "part-00002.parquet").unlink()  # a run killed with this shard in flight
    seen: list[tuple[int, int]] = []
    second = score_files([str(src)], str(out), shard_rows=10, actors=1, progress=lambda d, t: seen.append((d, t)))
    assert second["signature"] == first["signature"]
    assert {k: second[k] for k in ("shards", "skipped", "rows", "rows_scored")} == {
        "shards": 4,
        "skipped": 3,
        "rows": len(texts),
        "rows_scored": 10,
    }
    assert seen[0] == (len(texts) - 10, len(texts)) and seen[-1] == (len(texts), len(texts))
    for name, mtime in kept.items():
        if name != "part-00002.parquet":
            assert (out / name).stat().st_mtime_ns == mtime, f"{name} was written again"
    assert sorted(_read_out(out)["id"]) == list(range(len(texts)))
    with pytest.raises(ValueError, match="another run.*shard_rows"):
        score_files([str(src)], str(out), shard_rows=5, actors=1)


def _local_error(path: Path) -> str:
    proc = subprocess.run([ARTS, "score", str(path), "--no-progress"], capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    return proc.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("kind", ["empty", "utf8"])
def test_bad_input_in_one_shard_named_as_arts_score_names_it(cluster, texts, tmp_path, kind):
    if kind == "empty":
        src = tmp_path / "in.jsonl"
        lines = [json.dumps({"id": i, "text": t}) for i, t in enumerate(texts[:12])]
        lines[8] = json.dumps({"id": 8, "text": "  "})
        src.write_text("\n".join(lines) + "\n", encoding="utf-8")
        expected = f"{src} line 9: the text is empty"
    else:
        src = tmp_path / "in.txt"
        src.write_bytes("\n".join(texts[:12]).encode() + b"\nbad \xff byte\n" + texts[12].encode() + b"\n")
        expected = f"{src} line 13: not UTF-8 text (byte 0xff at column 5)"
    with pytest.raises(ValueError) as info:
        score_files([str(src)], str(tmp_path / "out"), shard_rows=4, actors=2)
    message = str(info.value)
    assert message.startswith(expected), message
    assert "\n" not in message and message in _local_error(src)


def test_cli_engine_ray_joins_a_cluster_and_writes_shards(cluster, texts, reference, tmp_path):
    src = _write_jsonl(tmp_path / "in.jsonl", texts)
    out = tmp_path / "scores"
    address = ray.get_runtime_context().gcs_address
    args = [ARTS, "score", str(src), "--engine", "ray", "--address", address, "--out", str(out)]
    proc = subprocess.run([*args, "--actors", "1", "--shard-rows", "9"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert f"{len(texts)} texts in 4 shards" in proc.stderr
    assert f"signature: {score_texts(texts[:1])['arts_signature']}" in proc.stderr
    got = _read_out(out).sort_values("id").reset_index(drop=True)
    _same(got, reference)
    again = subprocess.run([*args, "--actors", "1", "--shard-rows", "9"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and "4 shards already written, 0 texts scored now" in again.stderr


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_cli_engine_ray_out_file_is_one_file_in_input_order(cluster, texts, reference, tmp_path, suffix):
    """--out NAME.jsonl / NAME.parquet is one file of that format, rows in input order; the part
    files live in NAME.SUFFIX.parts/ while scoring (a stopped run resumes there) and go once gathered."""
    src = _write_jsonl(tmp_path / "in.jsonl", texts)
    out = tmp_path / f"scores{suffix}"
    parts = tmp_path / f"scores{suffix}.parts"
    args = ["--actors", "1", "--shard-rows", "9"]
    if suffix == ".parquet":  # a run stopped with shard 1 in flight: the same command scores only that shard
        score_files([str(src)], str(parts), shard_rows=9, actors=1, fmt="parquet")
        (parts / "part-00001.parquet").unlink()
    address = ray.get_runtime_context().gcs_address
    cmd = [ARTS, "score", str(src), "--engine", "ray", "--address", address, "--out", str(out), *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    scored = "3 shards already written, 9 texts scored now" if suffix == ".parquet" else "0 shards already written"
    assert f"{len(texts)} texts in 4 shards gathered into {out} ({scored}" in proc.stderr, proc.stderr[-2000:]
    assert out.is_file() and sorted(tmp_path.iterdir()) == [src, out]  # the part folder is gone
    if suffix == ".parquet":
        got = pd.read_parquet(out)
    else:
        got = pd.DataFrame([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])
    assert list(got["id"]) == list(range(len(texts)))  # input order, as written: not sorted here
    assert list(got["source_line"]) == list(range(1, len(texts) + 1))
    _same(got, reference)


def test_cli_engine_ray_passes_the_precision_to_the_actors(cluster, texts, tmp_path):
    """--precision int8: every actor scores in int8, the same bits as one process in int8."""
    src = _write_jsonl(tmp_path / "in.jsonl", texts)
    out = tmp_path / "scores.jsonl"
    address = ray.get_runtime_context().gcs_address
    cmd = [ARTS, "score", str(src), "--engine", "ray", "--address", address, "--out", str(out)]
    proc = subprocess.run([*cmd, "--actors", "2", "--shard-rows", "9", "--precision", "int8"], **RUN)
    assert proc.returncode == 0, proc.stderr[-2000:]
    int8 = score_texts(texts, judge_options={"precision": "int8"})
    assert f"signature: {int8['arts_signature']}" in proc.stderr and "+int8|" in int8["arts_signature"]
    got = [json.loads(line)["arts"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert got == int8["arts"]


def test_cli_engine_ray_prints_what_an_llm_judge_sent_over_all_actors(cluster, tmp_path):
    """`arts score --engine ray` prints the request line of `arts score`, summed over the actors:
    the numbers are the test server's count of chat requests."""
    from llm_server import ReplayServer

    own = [f"Line {i}: " + " ".join(["plain"] * (1 + i % 6) + ["intricate"] * (i % 4)) + "." for i in range(28)]
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps({"text": t, "elo": 1000.0 + 10 * len(t)}) + "\n" for t in own[:20]))
    src = _write_jsonl(tmp_path / "in.jsonl", own[20:])
    srv = ReplayServer(own)
    url = srv.start()
    try:
        judge = f"openai:m@{url}?progress=false&cache_dir={tmp_path / 'cache'}"
        address = ray.get_runtime_context().gcs_address
        args = [ARTS, "score", str(src), "--engine", "ray", "--address", address, "--out", str(tmp_path / "out")]
        args += ["--pool", str(pool), "--judge", judge, "--placement", "adaptive", "--budget", "4"]
        proc = subprocess.run(
            [*args, "--actors", "2", "--shard-rows", "4"], capture_output=True, text=True, timeout=600
        )
    finally:
        srv.stop()
    assert proc.returncode == 0, proc.stderr[-2000:]
    n = srv.chat_requests
    assert n >= 8 * 4 and "8 texts in 2 shards" in proc.stderr, proc.stderr[-2000:]
    # the driver asks the pool's calibration pairs once, before any actor starts: the actors read them
    # from the shared cache, so no prompt is sent twice and none of them comes after a newcomer's
    prompts = [p for _, p in srv.request_log]
    assert max(Counter(prompts).values()) == 1
    newcomer = [any(t in p for t in own[20:]) for p in prompts]
    assert not newcomer[0] and newcomer.index(True) == newcomer.count(False), newcomer
    line = re.search(
        r"^requests: (\d+) judgments \((\d+) from the cache, (\d+) answered by the model\); (\d+) "
        r"requests sent: (\d+) first asks",
        proc.stderr,
        re.M,
    )
    assert line, proc.stderr[-2000:]
    judgments, cached, answered, sent, first = map(int, line.groups())
    assert answered == sent == first == n and judgments == cached + n


def test_the_driver_asks_the_calibration_pairs_that_every_actor_would_ask(tmp_path):
    """What every actor asks first (the placement's calibration pairs among pool texts) is asked once,
    in the driver: a scorer built afterwards from the same settings, as each actor builds one, sends
    only its newcomers' pairs."""
    from llm_server import ReplayServer

    from arts_metric.distributed.ray_data import _ask_shared_questions
    from arts_metric.scoring.config import ScoringConfig
    from arts_metric.scoring.scorer import Scorer
    from arts_metric.scoring.units import place_texts

    own = [f"Line {i}: " + " ".join(["plain"] * (1 + i % 6) + ["intricate"] * (i % 4)) + "." for i in range(24)]
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps({"text": t, "elo": 1000.0 + 10 * len(t)}) + "\n" for t in own[:20]))
    srv = ReplayServer(own)
    url = srv.start()
    try:
        config = ScoringConfig(
            judge=f"openai:m@{url}?progress=false&cache_dir={tmp_path / 'cache'}",
            pool=str(pool),
            placement="adaptive",
            placement_options={"budget": 4},
        )
        _ask_shared_questions(config)
        asked = srv.chat_requests
        assert asked > 0 and all(not any(t in p for t in own[20:]) for _, p in srv.request_log)
        place_texts(own[20:], Scorer.prepare(config))  # an actor's scorer
        later = [p for _, p in srv.request_log[asked:]]
    finally:
        srv.stop()
    assert later and all(any(t in p for t in own[20:]) for p in later)
