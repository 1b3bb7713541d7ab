"""Building ARTS datasets: raters on a schedule, majority, Elo, report, export, resumability.

Recorded raters replay the ARTS data (read at run time); LLM raters talk to a
real OpenAI-protocol server on 127.0.0.1 (tests/llm_server.py).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from llm_server import ReplayServer
from repo_scripts import start_cli
from scipy.stats import spearmanr

from arts_metric import data as arts_data
from arts_metric.builder import (
    STORE_NAME,
    IncompleteRatingsError,
    aggregate,
    build,
    load_input,
    open_store,
    parse_rater,
)
from arts_metric.builder.export import verify_dataset
from arts_metric.cli import main as cli_main
from arts_metric.ratings import agreement
from arts_metric.ratings.elo import rank_scale, ratings_from_history

REPO = Path(__file__).resolve().parent.parent
PERSONA_ALPHAS = {  # paper section 5.4
    "medical": 0.9333,
    "legislative-administration": 0.9459,
    "philosophy": 0.9146,
    "geography": 0.9563,
}

# Self-written texts for runs that need no ARTS text.
TEXTS = [
    "The sun is hot.",
    "I like apples and pears.",
    "Our neighbours bought a red car last week.",
    "The train to the city leaves every hour in the morning.",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "The tribunal held that the contractual clause was void for uncertainty.",
    "Cats sleep a lot.",
    "Heterogeneous catalysis proceeds via adsorption of reactants onto active surface sites.",
    "We play football on Sundays.",
    "The amendment introduces proportionality review of delegated legislative acts.",
    "Fish swim in the sea.",
    "Epigenetic modifications modulate chromatin accessibility without altering nucleotide sequences.",
]


def _human_history_raters(data_dir: Path) -> list[str]:
    folder = data_dir / "histories" / "arts94" / "human"
    return [f"history:{folder / f'rater{i:02d}.jsonl'} name=rater{i:02d} group=human" for i in range(1, 17)]


def test_persona_runs_reproduce_the_paper_alphas_per_group(tmp_path, data_dir, capsys):
    folder = data_dir / "histories" / "arts160" / "gpt-4-1106-preview"
    runs = sorted(folder.glob("*.jsonl"))
    n = 1 + max(
        max(m.a, m.b) for m in arts_data.parse_history(json.loads(x) for x in runs[0].read_text().splitlines())
    )
    # ARTS160's texts are not published: stand-ins are enough to replay its histories by index.
    texts = tmp_path / "arts160.txt"
    texts.write_text("".join(f"stand-in text number {i}\n" for i in range(n)))
    args = ["build", str(texts), "--pairs", str(runs[0]), "--out", str(tmp_path / "out"), "--no-progress", "--json"]
    for run in runs:
        group = run.stem.rsplit("-", 1)[0]
        args += ["--rater", f"history:{run} name={run.stem} group={group}"]
    assert cli_main(args) == 0
    report = json.loads(capsys.readouterr().out)
    for group, alpha in PERSONA_ALPHAS.items():
        assert round(report["groups"][group]["alpha"], 4) == alpha, group
    assert report["groups"]["medical"]["raters"] == ["medical-A", "medical-B", "medical-C"]
    # The overall alpha is the agreement module's, over the 15 recorded runs.
    histories = [arts_data.parse_history(json.loads(x) for x in r.read_text().splitlines()) for r in runs]
    assert report["alpha"] == pytest.approx(agreement.krippendorff_alpha(histories), abs=1e-6)


def test_sixteen_humans_majority_elo_and_export(tmp_path, data_dir, no_network):
    out = tmp_path / "arts94-humans"
    raters = _human_history_raters(data_dir)
    result = build(
        "arts94",
        raters,
        out,
        pairs=arts_data.load_pairs("arts94", data_dir),
        seed=0,
        name="arts94-humans",
        license="mit",
        language="en",
        progress=False,
        data_dir=data_dir,
    )
    rep = result.report
    histories = [arts_data.load_history("arts94", "human", f"rater{i:02d}", data_dir) for i in range(1, 17)]
    # Alpha over the 16 raters: the agreement module on the recorded files, near the paper's .4231.
    assert rep["alpha"] == pytest.approx(agreement.krippendorff_alpha(histories), abs=1e-6)
    assert abs(rep["alpha"] - 0.4231) < 0.03
    # Agreement with the majority in the paper's range (Table 9: .69 to .90).
    agree = [r["agreement"] for r in rep["raters"]]
    assert 0.69 <= min(agree) and max(agree) <= 0.90

    # Where the 16 votes are not tied, our majority is their vote; ties follow our seed.
    votes = agreement.decision_matrix(histories)
    tied = np.nansum(votes, axis=0) * 2 == np.sum(~np.isnan(votes), axis=0)
    assert rep["majority"]["ties_broken"] == int(tied.sum()) > 0
    ours = agreement.code_decisions(result.majority)
    np.testing.assert_array_equal(ours[~tied], (np.nansum(votes, axis=0)[~tied] > 8).astype(float))
    # The released majority departs from the raters' vote on a few clear matches (see
    # test_agreement), so against it we ask for broad agreement only.
    released = arts_data.load_history("arts94", "human", "majority", data_dir)
    assert np.mean(ours[~tied] == agreement.code_decisions(released)[~tied]) > 0.9
    # Scores are the rank-scaled Elo of our majority and close to the released majority's.
    assert np.allclose(result.scores, rank_scale(ratings_from_history(94, result.majority)))
    ref = rank_scale(ratings_from_history(94, released))
    assert spearmanr(result.scores, ref).statistic > 0.9  # measured .936: Elo is order sensitive

    # Seeded tie-breaks: same seed, same majority; another seed changes tied matches only.
    with open_store(out) as store:
        names = [f"rater{i:02d}" for i in range(1, 17)]
        again = aggregate(store, names, seed=0)
        other = aggregate(store, names, seed=1)
    assert [m.harder for m in again.majority] == [m.harder for m in result.majority]
    changed = [m.match for m, o in zip(result.majority, other.majority) if m.harder != o.harder]
    assert changed and all(tied[c] for c in changed)

    # The folder is a Hugging Face dataset, loaded offline, plus histories in the ARTS format.
    ds = verify_dataset(out, cache_dir=tmp_path / "hf-cache")
    assert len(ds) == 94 and {"text", "arts", "elo", "id"} <= set(ds.column_names)
    assert np.allclose(ds["arts"], result.scores)
    rows = arts_data.load_pool_rows("arts94", data_dir)
    assert ds["text"] == [r["text"] for r in rows] and ds["id"] == [r["id"] for r in rows]
    arts_dir = out / "arts"
    assert arts_data.load_history("arts94-humans", "human", "rater07", arts_dir) == histories[6]
    assert arts_data.load_history("arts94-humans", "majority", "majority", arts_dir) == result.majority
    assert json.loads((arts_dir / "pairs" / "arts94-humans_pairs.json").read_text()) == [
        list(p) for p in arts_data.load_pairs("arts94", data_dir)
    ]
    card = (out / "README.md").read_text()
    assert card.startswith("---\nlicense: mit\n") and "- en" in card
    assert "rater16" in card and "Krippendorff" in card and "fixed pairs file" in card
    assert json.loads((out / "report.json").read_text())["alpha"] == rep["alpha"]


class LoggingServer(ReplayServer):
    """The replay server, keeping every pairwise prompt's texts in arrival order; the
    ``stall_at``-th request is never answered (a request in flight when the client dies)."""

    def __init__(self, *args, stall_at: int = 0, **kwargs):
        super().__init__(*args, **kwargs)
        self.asked: list[tuple[str, str]] = []
        self.stall_at = stall_at
        self.received = 0

    async def _route(self, method, path, headers, body):
        if path.endswith("/chat/completions"):
            self.received += 1
            if self.received == self.stall_at:
                await asyncio.sleep(120)
        return await super()._route(method, path, headers, body)

    def _answer(self, prompt):
        found = self._found(prompt)
        if len(found) == 2:
            self.asked.append((found[0], found[1]))
        return super()._answer(prompt)


def test_killed_build_resumes_without_losing_or_asking_twice(tmp_path, data_dir):
    rows = arts_data.load_pool_rows("arts94", data_dir)
    texts = [r["text"] for r in rows]
    recorded = arts_data.load_history("arts94", "gpt-4-1106-preview", "pairwise-run1", data_dir)
    # Batches of 16 pairs, 8 requests at a time. Request 150 never gets an answer, so its
    # batch never completes: the batch's other requests are answered, and each answer is
    # stored as it arrives, before the process is killed.
    srv = LoggingServer(texts, history=recorded, latency=0.01, stall_at=150)
    url = srv.start()
    env = dict(
        os.environ,
        PYTHONPATH=str(REPO),
        ARTS_CACHE_DIR=str(tmp_path / "llm-cache"),
        OPENAI_BASE_URL=url,
        OPENAI_API_KEY="test-key",
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
    )
    out = tmp_path / "out"
    args = [
        "build",
        "arts94",
        "--rater",
        "openai:gpt-4-1106-preview concurrency=8",
        "--pairs",
        str(data_dir / "pairs" / "arts94_pairs.json"),
        "--out",
        str(out),
        "--batch-size",
        "16",
        "--data-dir",
        str(data_dir),
    ]
    rater = "openai:gpt-4-1106-preview"
    pairs = arts_data.load_pairs("arts94", data_dir)
    try:
        proc = start_cli(args, env)
        deadline = time.monotonic() + 120
        while srv.received < 150 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        answered = -1
        while answered != len(srv.asked):  # until the rest of the batch is answered
            answered = len(srv.asked)
            time.sleep(0.3)
        proc.send_signal(signal.SIGKILL)  # no clean-up of any kind
        proc.wait(30)
        assert proc.returncode == -signal.SIGKILL, proc.stderr.read()[-2000:]
        n_before = len(srv.asked)
        with open_store(out) as store:
            stored_before = {r["match"]: r["harder"] for r in store.history(rater)}
        assert 150 <= len(stored_before) < 160  # everything answered, in the stalled batch too
        assert len(set(range(160)) - set(stored_before)) == 160 - len(stored_before)

        proc = start_cli(args, env)  # the same command again
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr[-3000:]
        assert "Krippendorff" in stdout and "rater" in stderr  # report on stdout, progress bar on stderr
        resumed = srv.asked[n_before:]
        n_after = len(srv.asked)

        assert start_cli(args, env).wait(300) == 0  # a finished build asks nobody anything
        assert len(srv.asked) == n_after
    finally:
        srv.stop()

    # No decision stored before the kill was asked again ...
    stored_pairs = {(texts[pairs[m][0]], texts[pairs[m][1]]) for m in stored_before}
    assert not stored_pairs & set(resumed)
    # ... every answer that arrived was stored (a repeated pair answers two matches): only the
    # request that never got an answer was sent again.
    assert len(stored_before) >= n_before
    twice = [p for p in resumed if p in srv.asked[:n_before]]
    assert twice == []  # the stalled request was never answered, so it is not in `asked`
    assert n_after == len(set(pairs))  # every distinct prompt answered exactly once overall
    assert srv.received == len(set(pairs)) + 1  # plus the one request that died in flight
    with open_store(out) as store:
        final = store.history(rater)
    assert [r["match"] for r in final] == list(range(len(pairs)))
    assert all(final[m]["harder"] == h for m, h in stored_before.items())  # nothing lost or changed
    # Every decision is the recorded GPT-4 answer (the server replays it; repeated pairs aside).
    repeated = {p for p in pairs if pairs.count(p) > 1 or pairs.count(p[::-1]) > 0}
    for r, m in zip(final, recorded):
        if (r["a"], r["b"]) not in repeated:
            assert r["harder"] == m.harder, r["match"]


def test_personas_and_runs_reach_the_llm(tmp_path, monkeypatch):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    srv = ReplayServer(TEXTS)  # unknown pairs: it answers that the shorter text is easier
    url = srv.start()
    try:
        raters = parse_rater(f"openai:m@{url} persona=medical runs=2") + parse_rater(f"openai:m@{url}")
        assert [r.kwargs.get("seed") for r in raters] == [1, 2, None]
        result = build(TEXTS, raters, tmp_path / "out", matches_per_text=3, seed=5, progress=False)
    finally:
        srv.stop()
    n = 3 * len(TEXTS)
    assert srv.topics["medical"] == 2 * n  # two runs with the domain-expert prompt, each asked anew
    assert srv.chat_requests == 3 * n
    rep = result.report
    assert set(rep["groups"]) == {"medical", "openai:m"}
    assert rep["groups"]["medical"]["raters"] == ["openai:m persona=medical #1", "openai:m persona=medical #2"]
    assert all(r["info"]["prompt_version"].startswith("arts_pairwise") for r in rep["raters"])
    assert all(str(url) not in r["name"] for r in rep["raters"])
    # The "shorter is easier" rater makes the longest text the hardest.
    longest = max(range(len(TEXTS)), key=lambda i: len(TEXTS[i]))
    assert result.scores[longest] >= 0.9
    card = (tmp_path / "out" / "README.md").read_text()
    assert "arts_pairwise_expert/v1" in card and "seed 5" in card


def test_humans_unfinished_stop_the_build_until_they_finish(tmp_path, capsys, data_dir):
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS) + "\n")
    out = tmp_path / "out"
    hist = tmp_path / "recorded.jsonl"
    args = [
        "build",
        str(texts),
        "--rater",
        "human:zoe",
        "--rater",
        f"history:{hist} name=rec",
        "--out",
        str(out),
        "--matches-per-text",
        "2",
        "--no-progress",
    ]
    # A recorded rater on this very schedule: answers "the longer text is harder".
    from arts_metric.ratings.schedule import make_schedule

    pairs = make_schedule(len(TEXTS), 2, 0)
    hist.write_text(
        "".join(
            json.dumps({"match": i, "a": a, "b": b, "time": None, "harder": a if len(TEXTS[a]) > len(TEXTS[b]) else b})
            + "\n"
            for i, (a, b) in enumerate(pairs)
        )
    )
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert "human:zoe 0/24" in err and "arts rate" in err
    with open_store(out) as store:
        assert store.progress("rec") == (24, 24)  # the machine rater is saved already
        for m, (a, b) in enumerate(store.pairs()):  # zoe rates (the web interface writes the same rows)
            store.record("human:zoe", m, b if m % 3 == 0 else a)
    assert cli_main(args + ["--rater", "human:*"]) == 0  # human:* = zoe again; names stay unique
    out_text = capsys.readouterr().out
    assert "human:zoe" in out_text and "human:zoe #2" not in out_text


def test_bad_inputs_are_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "fine"}\n{"txt": "oops"}\n')
    with pytest.raises(ValueError, match=r"row 1 has no 'text' field"):
        load_input(bad)
    with pytest.raises(ValueError, match="share the id"):
        load_input([{"id": 1, "text": "a"}, {"id": 1, "text": "b"}])
    with pytest.raises(ValueError, match="expected key=value"):
        parse_rater("learned oops")
    with pytest.raises(ValueError, match="runs must be a positive integer"):
        parse_rater("learned runs=0")
    out = tmp_path / "out"
    hist = tmp_path / "h.jsonl"
    hist.write_text("")
    with pytest.raises(IncompleteRatingsError):
        build(TEXTS, ["human:amy"], out, progress=False)
    with pytest.raises(ValueError, match="different schedule"):
        build(TEXTS, ["human:amy"], out, seed=1, progress=False)
    with pytest.raises(ValueError, match="different texts"):
        build(TEXTS[::-1], ["human:amy"], out, progress=False)
    with pytest.raises(ValueError, match="does not accept|unknown options"):
        build(TEXTS, [f"history:{hist} colour=blue"], out, progress=False)
    assert (out / STORE_NAME).is_file()


def test_input_forms(tmp_path):
    import datasets

    (tmp_path / "t.txt").write_text("one\n two \nthree\n\n")
    rows, _ = load_input(tmp_path / "t.txt")
    assert [r["text"] for r in rows] == ["one", " two ", "three"] and [r["id"] for r in rows] == ["0", "1", "2"]
    (tmp_path / "t.txt").write_text("one\n\n two \nthree\n")  # a blank line inside would shift the ids
    with pytest.raises(ValueError, match="t.txt line 2: blank line"):
        load_input(tmp_path / "t.txt")
    (tmp_path / "t.csv").write_text("id,body,domain\na,first text,med\nb,second text,law\n")
    rows, _ = load_input(tmp_path / "t.csv", text_column="body")
    assert rows == [
        {"id": "a", "text": "first text", "domain": "med"},
        {"id": "b", "text": "second text", "domain": "law"},
    ]
    datasets.Dataset.from_dict({"text": ["x y", "z"], "level": [1, 2]}).save_to_disk(str(tmp_path / "ds"))
    rows, desc = load_input(tmp_path / "ds")
    assert [r["level"] for r in rows] == [1, 2] and "dataset folder" in desc


def _replay_history(path: Path, n_texts: int, matches_per_text: int, seed: int = 0) -> None:
    """A recorded rater on the seeded schedule of ``n_texts`` texts: the higher index is harder."""
    from arts_metric.ratings.schedule import make_schedule

    pairs = make_schedule(n_texts, matches_per_text, seed)
    path.write_text(
        "".join(
            json.dumps({"match": i, "a": a, "b": b, "time": None, "harder": max(a, b)}) + "\n"
            for i, (a, b) in enumerate(pairs)
        )
    )


def test_input_columns_named_like_ours_do_not_replace_them(tmp_path):
    import pandas as pd

    rows, _ = load_input(
        [
            {"body": "first", "text": "other", "uid": "u1", "id": 7},
            {"body": "second", "text": "other", "uid": "u2", "id": 7},
        ],
        text_column="body",
        id_column="uid",
    )
    assert [(r["id"], r["text"]) for r in rows] == [("u1", "first"), ("u2", "second")]
    # An input that already has scores (e.g. an older ARTS dataset): the new ones win, the old are kept aside.
    hist = tmp_path / "h.jsonl"
    _replay_history(hist, 6, 1)
    old = [{"text": t, "arts": 0.5, "rank": 99} for t in TEXTS[:6]]
    result = build(old, [f"history:{hist}"], tmp_path / "out", matches_per_text=1, progress=False)
    df = pd.read_parquet(tmp_path / "out" / "data" / "train-00000-of-00001.parquet")
    assert np.allclose(df["arts"], result.scores) and sorted(df["rank"]) == list(range(1, 7))
    assert list(df["input_arts"]) == [0.5] * 6 and list(df["input_rank"]) == [99] * 6


def test_missing_input_file_is_not_looked_up_online(tmp_path, monkeypatch, no_network):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="input file not found: mytexts.txt"):
        load_input("mytexts.txt")


def test_human_raters_are_named_by_their_login_and_groups_follow_the_command(tmp_path):
    from arts_metric.web import RatingApp

    for bad, msg in (
        ("human:alice name=Alice", "named by their login"),
        ("human:alice runs=2", "human rater"),
        ("human:alice persona=medical", "no judge options"),
        ("human:", "not allowed"),
        ("human:a/b", "not allowed"),
    ):
        with pytest.raises(ValueError, match=msg):
            parse_rater(bad)
    hist = tmp_path / "h.jsonl"
    _replay_history(hist, len(TEXTS), 1)
    out = tmp_path / "out"
    with pytest.raises(IncompleteRatingsError, match="human:alice 0/12"):
        build(
            TEXTS,
            [f"history:{hist} name=rec group=A", "human:alice group=experts"],
            out,
            matches_per_text=1,
            progress=False,
        )
    # alice rates in the web interface (its real app object); logging in keeps her group
    app = RatingApp(out)
    try:
        p = app.login({"name": "alice"})
        while not p["finished"]:
            p = app.decide({"rater": "alice", "match": p["match"]["match"], "clicked": p["match"]["a"]["index"]})
    finally:
        app.close()
    # a rerun with other groups uses them; human:* keeps the group alice was given by name
    result = build(TEXTS, [f"history:{hist} name=rec group=B", "human:*"], out, matches_per_text=1, progress=False)
    assert result.report["groups"]["B"]["raters"] == ["rec"]
    assert result.report["groups"]["experts"]["raters"] == ["human:alice"] and "A" not in result.report["groups"]


def test_no_credentials_in_the_card_or_report(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path / "cache"))
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(TEXTS[:4]) + "\n")
    srv = ReplayServer(TEXTS[:4])
    url = srv.start()
    with_user = url.replace("http://", "http://user:secret1@")
    out = tmp_path / "out"
    argv = [
        "build",
        str(texts),
        "--rater",
        f"openai:m@{with_user}",
        "--rater",
        f"openai:m base_url={with_user} api_key=secret2 name=two",
        "--out",
        str(out),
        "--matches-per-text",
        "1",
        "--no-progress",
    ]
    monkeypatch.setattr(sys, "argv", ["arts", *argv])
    try:
        assert cli_main(argv) == 0
    finally:
        srv.stop()
    assert srv.chat_requests > 0  # the LLM raters really ran
    card, report = (out / "README.md").read_text(), (out / "report.json").read_text()
    assert "- Command: `arts build" in card and "base_url=" in card  # the command and settings are there ...
    assert "secret" not in card + report  # ... without the credentials


def test_a_damaged_store_is_named(tmp_path):
    (tmp_path / STORE_NAME).write_bytes(b"this is not an SQLite file" * 100)
    with pytest.raises(ValueError, match="not a usable build store"):
        open_store(tmp_path)
