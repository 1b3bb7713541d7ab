"""`arts build` loses nothing it did not get: only answers are stored, reruns ask exactly the rest,
the export refuses while answers are missing, one build per folder, no secret anywhere.

LLM raters talk to the real OpenAI-protocol test server on 127.0.0.1 (tests/llm_server.py)
through the real `openai` client; Python raters are small real judges.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest
from llm_server import Faults, ReplayServer
from repo_scripts import start_cli

from arts_metric.builder import STORE_NAME, IncompleteRatingsError, RaterConfig, build, open_store, run_rater
from arts_metric.builder.lock import BuildInProgressError, BuildLock
from arts_metric.cli import main as cli_main
from arts_metric.judges.base import UNANSWERED, Judge
from arts_metric.llm.options import LLMOptions

REPO = Path(__file__).resolve().parent.parent
_WORDS = (
    "river",
    "council",
    "bread",
    "photosynthesis",
    "tiny",
    "regulation",
    "dog",
    "jurisprudence",
    "garden",
    "mitochondrial",
    "blue",
    "proportionality",
    "ship",
    "catalysis",
    "school",
    "amendment",
)
#: 60 self-written texts of different lengths: 4 matches per text = 240 matches, no repeated pair.
TEXTS = [
    f"Text {i}: " + " ".join(_WORDS[(i * 7 + j) % len(_WORDS)] for j in range(2 + i % 13)) + "." for i in range(60)
]
#: Sending no duplicates of slow requests keeps request counts exact where the judge can hedge.
NO_HEDGES = " hedges=0" if "hedges" in {f.name for f in dataclasses.fields(LLMOptions)} else ""


class ChosenFailures(Judge):
    """Longer text = harder; the pairs in ``fail`` get no answer (UNANSWERED), those in ``invalid``
    an unusable one (None). Every pair asked is kept in ``asked``."""

    name = "chosen-failures"
    preferred_batch = 16

    def __init__(self, fail=(), invalid=()) -> None:
        super().__init__()
        self.fail, self.invalid = set(fail), set(invalid)
        self.asked: list[tuple[str, str]] = []

    def compare(self, pairs):
        self.asked.extend(pairs)
        return [
            UNANSWERED if p in self.fail else None if p in self.invalid else float(len(p[0]) > len(p[1]))
            for p in pairs
        ]


class AskLog(ReplayServer):
    """The replay server, keeping the two texts of every pairwise prompt it answers, in order."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: list[tuple[str, str]] = []

    def _answer(self, prompt):
        found = self._found(prompt)
        if len(found) == 2:
            self.asked.append((found[0], found[1]))
        return super()._answer(prompt)


def _pair_texts(out: Path, matches) -> set[tuple[str, str]]:
    with open_store(out) as store:
        texts, pairs = store.texts(), store.pairs()
    return {(texts[pairs[m][0]], texts[pairs[m][1]]) for m in matches}


def test_unanswered_pairs_are_not_stored_and_the_rerun_asks_exactly_them(tmp_path):
    out = tmp_path / "out"
    from arts_metric.ratings.schedule import make_schedule

    pairs = make_schedule(len(TEXTS), 4, 0)
    failing = {(TEXTS[a], TEXTS[b]) for a, b in pairs[5:240:5]}  # 47 of 240
    judge = ChosenFailures(fail=failing, invalid={(TEXTS[pairs[1][0]], TEXTS[pairs[1][1]])})
    rater = RaterConfig("chosen-failures", name="flaky", judge=judge)
    with pytest.warns(RuntimeWarning, match="flaky: 47 of 240 matches have no answer"):
        with pytest.raises(IncompleteRatingsError, match=r"flaky 193/240 \(47 unanswered\)") as info:
            build(TEXTS, [rater], out, progress=False)
    assert info.value.missing == {"flaky": 47} and info.value.humans == []
    assert not (out / "README.md").exists() and not (out / "data").exists()  # nothing exported
    with open_store(out) as store:
        assert store.progress("flaky") == (193, 240)  # the invalid answer is stored, the failures are not
        assert _pair_texts(out, store.missing("flaky")) == failing
        assert [r["match"] for r in store.history("flaky") if r["harder"] is None] == [1]

    # The rerun asks exactly the 47 unanswered matches and exports everything.
    judge.asked.clear()
    judge.fail.clear()
    result = build(TEXTS, [rater], out, progress=False)
    assert set(judge.asked) == failing and len(judge.asked) == 47
    rep = result.report["raters"][0]
    assert (rep["decided"], rep["invalid"], rep["missing"]) == (239, 1, 0) and result.report["complete"]
    history = [
        json.loads(x)
        for x in (out / "arts" / "histories" / "arts-dataset" / "chosen-failures" / "flaky.jsonl")
        .read_text()
        .splitlines()
    ]
    assert [r["match"] for r in history] == list(range(240))


def test_allow_incomplete_exports_and_says_what_is_missing(tmp_path, capsys):
    out = tmp_path / "out"
    from arts_metric.ratings.schedule import make_schedule

    pairs = make_schedule(12, 2, 0)
    failing = {(TEXTS[a], TEXTS[b]) for a, b in pairs[:5]}
    judges = [ChosenFailures(fail=failing), ChosenFailures()]
    raters = [RaterConfig("x", name="flaky", judge=judges[0]), RaterConfig("x", name="steady", judge=judges[1])]
    with pytest.warns(RuntimeWarning, match="flaky: 5 of 24"):
        result = build(TEXTS[:12], raters, out, matches_per_text=2, allow_incomplete=True, progress=False)
    report = json.loads((out / "report.json").read_text())
    assert report["complete"] is False and report["missing"] == {"flaky": 5}
    assert [(r["name"], r["missing"], r["decided"]) for r in report["raters"]] == [("flaky", 5, 19), ("steady", 0, 24)]
    card = (out / "README.md").read_text()
    assert "**Incomplete**" in card and "flaky 5 of 24" in card
    # the majority of the 5 matches is the steady rater's vote alone
    assert result.report["majority"]["undecided"] == 0


def test_cli_refuses_to_export_with_unanswered_matches_unless_allowed(tmp_path, capsys, monkeypatch):
    """`max_requests=100` on 240 matches: 140 not sent; exit 2 and nothing exported; the
    rerun sends exactly the 140; --allow-incomplete exports a partial run."""
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    out = tmp_path / "out"
    srv = AskLog(TEXTS)
    url = srv.start()
    base = ["build", str(texts), "--out", str(out), "--no-progress"]
    try:
        code = cli_main(base + ["--rater", f"openai:m@{url} max_requests=100 concurrency=4{NO_HEDGES}"])
        err = capsys.readouterr().err
        assert code == 2 and srv.chat_requests == 100
        assert "openai:m 100/240 (140 unanswered)" in err and "--allow-incomplete" in err and "Traceback" not in err
        assert not (out / "README.md").exists()
        with open_store(out) as store:
            assert store.progress("openai:m") == (100, 240)
            missing = _pair_texts(out, store.missing("openai:m"))

        code = cli_main(base + ["--rater", f"openai:m@{url} concurrency=4{NO_HEDGES}"])
        assert code == 0, capsys.readouterr().err
        assert srv.chat_requests == 240 and set(srv.asked[100:]) == missing
        report = json.loads((out / "report.json").read_text())
        assert report["complete"] and report["raters"][0]["decided"] == 240

        # A new folder, a budget again, but exported anyway: the card counts what is missing.
        code = cli_main(
            [
                "build",
                str(texts),
                "--out",
                str(tmp_path / "partial"),
                "--no-progress",
                "--allow-incomplete",
                "--rater",
                f"openai:m@{url} max_requests=30 name=tight cache=false{NO_HEDGES}",
            ]
        )
        assert code == 0, capsys.readouterr().err
    finally:
        srv.stop()
    report = json.loads((tmp_path / "partial" / "report.json").read_text())
    assert report["missing"] == {"tight": 210}
    assert "tight 210 of 240" in (tmp_path / "partial" / "README.md").read_text()


def test_timeouts_leave_matches_to_ask_and_the_rerun_completes_them(tmp_path, monkeypatch):
    """240 matches, a fifth of the requests hang past the client's timeout: the build stores
    only answers, refuses to export, and a plain rerun asks exactly the missing matches."""
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    slow = AskLog(TEXTS, faults=Faults(rate_timeout=0.2, hang=1.5, seed=3))
    url = slow.start()
    try:
        spec = f"openai:m@{url} timeout=0.4 max_retries=0 concurrency=16{NO_HEDGES}"
        with pytest.raises(IncompleteRatingsError, match="unanswered"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                build(TEXTS, [spec], out, progress=False)
    finally:
        slow.stop()
    with open_store(out) as store:
        missing = store.missing("openai:m")
        decided, total = store.progress("openai:m")
        stored_nulls = sum(r["harder"] is None for r in store.history("openai:m"))
    assert total == 240 and 20 <= len(missing) <= 80 and decided == 240 - len(missing)
    assert stored_nulls == 0  # a timeout is never stored as a judgment

    srv = AskLog(TEXTS)
    url = srv.start()
    try:
        result = build(TEXTS, [f"openai:m@{url} concurrency=16{NO_HEDGES}"], out, progress=False)
    finally:
        srv.stop()
    assert srv.chat_requests == len(missing) and set(srv.asked) == _pair_texts(out, missing)
    assert result.report["raters"][0]["decided"] == 240 and result.report["complete"]
    import pandas as pd

    df = pd.read_parquet(out / "data" / "train-00000-of-00001.parquet")
    assert len(df) == 60 and df["matches"].sum() == 2 * 240  # every match in the export


def test_two_builds_on_one_folder_never_pay_twice(tmp_path):
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    out = tmp_path / "out"
    srv = ReplayServer(TEXTS, latency=0.05)
    url = srv.start()
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        ARTS_CACHE_DIR=str(tmp_path / "cache"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
    )
    args = [
        "build",
        str(texts),
        "--out",
        str(out),
        "--no-progress",
        "--rater",
        f"openai:m@{url} concurrency=4{NO_HEDGES}",
    ]
    try:
        first = start_cli(args, env)
        deadline = time.monotonic() + 120
        while srv.chat_requests < 8 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert first.poll() is None, first.communicate()[1][-2000:]
        second = start_cli(args, env)
        _, err2 = second.communicate(timeout=120)
        # The rating page writes to the store while the build runs (the lock is for builds only).
        with open_store(out) as store:
            assert store.record("human:zoe", 0, store.pairs()[0][0])
        assert first.poll() is None  # the first build was still running all along
        _, err1 = first.communicate(timeout=300)
    finally:
        srv.stop()
    assert first.returncode == 0, err1[-2000:]
    assert second.returncode == 2 and f"being built by process {first.pid}" in err2 and "Traceback" not in err2
    assert srv.chat_requests == 240  # 240 matches, each paid once
    assert (out / ".lock").read_text() == ""  # released; the pid is gone with its holder


def test_the_build_lock_is_released_when_its_holder_dies(tmp_path):
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from arts_metric.builder.lock import BuildLock; "
            f"BuildLock({str(tmp_path)!r}).acquire(); print('locked', flush=True); time.sleep(60)",
        ],
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(BuildInProgressError, match=f"process {holder.pid} right now"):
            BuildLock(tmp_path).acquire()
    finally:
        holder.kill()  # SIGKILL: no clean-up of any kind
        holder.wait(30)
    with BuildLock(tmp_path):  # the kernel released it
        assert (tmp_path / ".lock").read_text().strip() == str(os.getpid())


SECRETS = ("PW-one-7f3", "SK-two-91c", "PW-three-5d0", "SK-four-2ab", "SK-five-c44")


def _files_with(root: Path, secrets=SECRETS) -> list[str]:
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            found += [f"{path.relative_to(root)}: {s}" for s in secrets if s.encode() in data]
    return found


def test_no_secret_reaches_a_file_or_a_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS[:8]) + "\n")
    out = tmp_path / "out"
    srv = ReplayServer(TEXTS[:8])
    url = srv.start()
    host = url.removeprefix("http://")
    raters = [
        f"openai:m@http://user:{SECRETS[0]}@{host}",
        f"openai:m base_url=http://u2:{SECRETS[2]}@{host} api_key={SECRETS[3]} persona=medical",
    ]
    argv = ["build", str(texts), "--out", str(out), "--matches-per-text", "2", "--no-progress", "--json"]
    for r in raters:
        argv += ["--rater", r]
    messages = []
    try:
        monkeypatch.setattr(sys, "argv", ["arts", *argv])
        assert cli_main(argv) == 0
        messages += list(capsys.readouterr())
        # errors that quote the rater: a key in the spec's options (refused by the judge after the
        # rater was registered in the store), an unknown option, a malformed rater, a bad run count
        for bad in (
            f"openai:m@{url}?api_key={SECRETS[1]}&temperature=0.5",
            raters[0] + "?colour=blue",
            raters[1] + " oops",
            raters[1] + " runs=0",
            f"openai:m?api_key={SECRETS[4]}",
        ):
            assert (
                cli_main(
                    ["build", str(texts), "--out", str(tmp_path / "bad"), "--matches-per-text", "2", "--rater", bad]
                )
                == 2
            ), bad
            messages += list(capsys.readouterr())
        with pytest.raises(Exception) as info:
            build(TEXTS[:8], [raters[0] + "?colour=blue"], tmp_path / "bad", matches_per_text=2, progress=False)
        messages.append(str(info.value) + repr(info.value))
    finally:
        srv.stop()
    locked = ReplayServer(TEXTS[:8], api_key="the-right-key")  # answers 401 and echoes the key it got
    url2 = locked.start()
    try:
        bad_key = f"openai:m@{url2} api_key={SECRETS[1]} cache=false"  # so that it asks the server
        assert (
            cli_main(
                [
                    "build",
                    str(texts),
                    "--out",
                    str(tmp_path / "o2"),
                    "--matches-per-text",
                    "2",
                    "--no-progress",
                    "--rater",
                    bad_key,
                ]
            )
            == 2
        )
        messages += list(capsys.readouterr())
    finally:
        locked.stop()
    assert locked.stats["status_401"] > 0  # the key really went to the server and came back in its error
    assert srv.chat_requests > 0
    text = "\n".join(messages)
    assert "401" in text and "colour" in text and "runs must be a positive integer" in text
    assert [s for s in SECRETS if s in text] == []
    assert [_files_with(tmp_path / d) for d in ("out", "bad", "o2", "cache")] == [[], [], [], []]
    report = json.loads((out / "report.json").read_text())
    assert [r["name"] for r in report["raters"]] == ["openai:m", "openai:m persona=medical"]
    card = (out / "README.md").read_text()
    assert "- Command: `arts build" in card and "api_key=***" in card and "***@" in card


def _legacy(out: Path, name: str, spec: str, nulls: list[int]) -> None:
    """Make a store look written by an earlier version: a raw spec with secrets, NULL rows for failures."""
    conn = sqlite3.connect(out / STORE_NAME)
    with conn:
        conn.execute("UPDATE raters SET name = ?, spec = ?", (name, spec))
        conn.execute("UPDATE decisions SET rater = ?", (name,))
        conn.executemany("UPDATE decisions SET harder = NULL, prob = NULL WHERE match = ?", [(m,) for m in nulls])
        conn.execute("DELETE FROM meta WHERE key = 'store_format'")
    conn.close()


def test_stores_from_earlier_versions_lose_their_secrets_and_name_their_null_rows(tmp_path):
    out = tmp_path / "out"
    build(
        TEXTS[:12],
        [RaterConfig("x", name="openai:m", judge=ChosenFailures())],
        out,
        matches_per_text=2,
        progress=False,
    )
    _legacy(
        out,
        f"openai:m?api_key={SECRETS[1]}",
        f"openai:m@http://u:{SECRETS[0]}@h/v1?api_key={SECRETS[1]}",
        nulls=[3, 7, 8],
    )
    assert _files_with(out) != []  # the simulated old store holds them
    with open_store(out) as store:
        assert [(r["name"], r["spec"]) for r in store.raters()] == [("openai:m", "openai:m@http://h/v1")]
        assert store.legacy_nulls("openai:m") == 3 and store.progress("openai:m") == (24, 24)
    assert _files_with(out) == []  # gone from the store file itself, not just from what it shows

    # A plain rerun keeps them as invalid answers (they cannot be told apart) and says so.
    judge = ChosenFailures()
    cfg = RaterConfig("x", name="openai:m", judge=judge)
    with open_store(out) as store:
        with pytest.warns(RuntimeWarning, match="openai:m: 3 stored decisions without an answer.*--retry-invalid"):
            run_rater(store, cfg, progress=False)
        assert judge.asked == []
        # --retry-invalid asks exactly them, and the store forgets they were legacy
        run_rater(store, cfg, retry_invalid=True, progress=False)
        assert len(judge.asked) == 3 and store.legacy_nulls("openai:m") == 0
        assert all(r["harder"] is not None for r in store.history("openai:m"))


def test_a_killed_build_without_the_judge_cache_keeps_every_answer_it_received(tmp_path):
    """Each answer is committed to build.sqlite as it arrives: after ``kill -9`` mid-batch, the rerun asks
    only what was never stored, so at most the requests in flight at the kill are paid twice."""
    src = tmp_path / "texts.txt"
    src.write_text("\n".join(TEXTS[:40]) + "\n")
    out = tmp_path / "out"
    srv = ReplayServer(TEXTS[:40], latency=0.05)
    url = srv.start()
    concurrency = 4
    rater = f"openai:m@{url} cache=false concurrency={concurrency}{NO_HEDGES}"
    argv = ["build", str(src), "--out", str(out), "--matches-per-text", "4", "--no-progress", "--rater", rater]
    try:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "arts"), *argv],
            cwd=REPO,
            env=dict(os.environ, PYTHONPATH=str(REPO)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 120
        while srv.stats["status_200"] < 20 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.01)
        proc.kill()  # SIGKILL mid-batch (the first batch has 32 matches)
        proc.wait(30)
        delivered = srv.stats["status_200"]
        with sqlite3.connect(out / STORE_NAME) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
            total = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        assert 20 <= delivered < 32 and total == 160
        assert stored >= delivered - concurrency  # only answers still in flight at the kill are lost
        before = srv.chat_requests
        assert cli_main(argv) == 0
        asked_again = srv.chat_requests - before
    finally:
        srv.stop()
    assert asked_again == total - stored
    assert srv.chat_requests <= total + concurrency


def test_a_full_disk_under_the_build_store_is_a_clear_error_and_the_rerun_continues(tmp_path, monkeypatch):
    """``PRAGMA max_page_count`` on the store's own connection: SQLite answers "database or disk is full"
    as on a full disk."""
    from arts_metric.builder.store import DecisionStore

    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    srv = ReplayServer(TEXTS[:40])
    url = srv.start()
    rater = f"openai:m@{url} concurrency=4{NO_HEDGES}"
    opened = DecisionStore.__init__

    def small_disk(self, path):
        opened(self, path)
        pages = self.conn.execute("PRAGMA page_count").fetchone()[0]
        self.conn.execute(f"PRAGMA max_page_count = {pages + 1}")

    try:
        with monkeypatch.context() as m:
            m.setattr(DecisionStore, "__init__", small_disk)
            with pytest.raises(OSError) as info:
                build(TEXTS[:40], [rater], out, matches_per_text=4, progress=False)
        message = str(info.value)
        assert str(out / STORE_NAME) in message and "full" in message and "run the same build again" in message
        with sqlite3.connect(out / STORE_NAME) as conn:
            stored = conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0]
        assert 0 < stored < 160
        build(TEXTS[:40], [rater], out, matches_per_text=4, progress=False)
        with sqlite3.connect(out / STORE_NAME) as conn:
            assert conn.execute("SELECT COUNT(*) FROM decisions").fetchone()[0] == 160
    finally:
        srv.stop()


def test_a_request_slot_is_freed_only_once_its_answer_is_recorded(tmp_path):
    """While answers are committed one by one, the requests sent never run ahead of the answers
    recorded by more than the judge's concurrency: what a kill can lose is at most the requests
    in flight, never an answer received but not yet committed."""
    from arts_metric.builder.asking import ask
    from arts_metric.scoring.config import ScoringConfig

    concurrency = 4
    srv = ReplayServer(TEXTS[:40], latency=0.02)
    url = srv.start()
    gaps: list[int] = []

    def record(match: int, decision, seconds: float) -> None:
        gaps.append(srv.chat_requests - len(gaps))  # sent, minus the answers committed before this one
        time.sleep(0.005)  # a commit takes a moment

    try:
        options = {"cache": False, "concurrency": concurrency, "progress": False, "hedges": 0}
        judge = ScoringConfig(judge=f"openai:m@{url}", judge_options=options).make_judge()
        pairs = [(TEXTS[i], TEXTS[(i + 7) % 40]) for i in range(60)]
        ask(judge, list(enumerate(pairs)), record)
    finally:
        srv.stop()
    assert len(gaps) == 60 and max(gaps) <= concurrency, gaps
