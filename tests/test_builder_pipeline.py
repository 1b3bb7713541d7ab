"""A resumed build asks only the matches without a stored answer (found
by a planted bug: a resume that asked every match again passed the whole
suite, because the LLM cache hid the repeats and stored rows are never
overwritten).

The judges here have no cache: every pair that reaches ``compare`` is counted.
"""

from __future__ import annotations

import pytest

from arts_metric.builder import RaterConfig, prepare, run_rater
from arts_metric.judges.base import UNANSWERED, Judge

_WORDS = ("river", "council", "bread", "photosynthesis", "tiny", "regulation", "dog", "jurisprudence")
#: 24 self-written texts of different lengths (longer = harder for the judges below)
TEXTS = [
    f"Text {i}: " + " ".join(_WORDS[(i * 3 + j) % len(_WORDS)] for j in range(1 + i % 9)) + "." for i in range(24)
]


class Killed(Exception):
    """Stands for the process dying in the middle of a build."""


class CountingJudge(Judge):
    """Longer text = harder (or the reverse with ``flip``); pairs in ``fail`` get no answer,
    those in ``invalid`` an unusable one; keeps every pair asked.
    With ``die_after`` it answers that many ``compare`` calls, then the build "dies"."""

    name = "counting"
    preferred_batch = 8

    def __init__(self, die_after: int | None = None, flip: bool = False, fail=(), invalid=()) -> None:
        super().__init__()
        self.die_after, self.flip, self.fail, self.invalid = die_after, flip, set(fail), set(invalid)
        self.calls = 0
        self.asked: list[tuple[str, str]] = []

    def compare(self, pairs):
        if self.die_after is not None and self.calls >= self.die_after:
            raise Killed
        self.calls += 1
        self.asked.extend(pairs)
        return [
            UNANSWERED
            if p in self.fail
            else None
            if p in self.invalid
            else float((len(p[0]) > len(p[1])) != self.flip)
            for p in pairs
        ]


def _asked_matches(store, judge: CountingJudge) -> list[int]:
    texts, pairs = store.texts(), store.pairs()
    index = {(texts[a], texts[b]): m for m, (a, b) in enumerate(pairs)}
    return [index[p] for p in judge.asked]


def test_a_killed_build_resumes_with_exactly_the_matches_it_had_no_answer_for(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        n = len(store.pairs())
        first = CountingJudge(die_after=3)  # 3 batches of 8 answered, then the run dies
        with pytest.raises(Killed):
            run_rater(store, RaterConfig("counting", name="r", judge=first), batch_size=8, progress=False)
        done = sorted(_asked_matches(store, first))
        assert done == list(range(24)) and store.progress("r") == (24, n)
        before = store.history("r")

        # The resumed run's judge answers every pair the other way round: a match asked
        # again would show in ``asked`` even though the stored row would not change.
        resumed = CountingJudge(flip=True)
        info = run_rater(store, RaterConfig("counting", name="r", judge=resumed), batch_size=8, progress=False)
        assert sorted(_asked_matches(store, resumed)) == list(range(24, n))
        assert len(resumed.asked) == n - 24 and info["missing"] == 0
        assert store.history("r")[:24] == before  # the first run's answers are kept as they were

        # Nothing left to ask: a third run sends no pair at all.
        idle = CountingJudge()
        assert run_rater(store, RaterConfig("counting", name="r", judge=idle), progress=False)["missing"] == 0
        assert idle.asked == []


def test_a_rerun_asks_only_the_failed_matches_not_the_invalid_ones(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        texts, pairs = store.texts(), store.pairs()
        failed = {3, 10, 17}
        first = CountingJudge(
            fail={(texts[pairs[m][0]], texts[pairs[m][1]]) for m in failed},
            invalid={(texts[pairs[5][0]], texts[pairs[5][1]])},
        )
        with pytest.warns(RuntimeWarning, match="3 of 48 matches have no answer"):
            assert run_rater(store, RaterConfig("counting", name="r", judge=first), progress=False)["missing"] == 3
        assert sorted(store.missing("r")) == sorted(failed)
        assert [r["match"] for r in store.history("r") if r["harder"] is None] == [5]  # invalid: decided
        again = CountingJudge()
        run_rater(store, RaterConfig("counting", name="r", judge=again), progress=False)
        assert sorted(_asked_matches(store, again)) == sorted(failed)
        assert store.missing("r") == []


# ---- more behaviours of run_rater and build found by mutation testing ----

import time  # noqa: E402

from arts_metric.builder import IncompleteRatingsError, build  # noqa: E402
from arts_metric.ratings.schedule import make_schedule  # noqa: E402


class RecordingJudge(CountingJudge):
    """A :class:`CountingJudge` that keeps the size of every batch, whether it was closed, and
    reports stats of its own (``stopped`` once ``stop_after`` batches were sent, as a spent budget)."""

    def __init__(self, *args, stop_after: int | None = None, cost=0.5, sleep: float = 0.0, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.batches: list[int] = []
        self.closed = False
        self.stop_after, self.cost, self.sleep = stop_after, cost, sleep

    def compare(self, pairs):
        self.batches.append(len(pairs))
        time.sleep(self.sleep)
        if self.stop_after is not None and len(self.batches) > self.stop_after:
            self.calls += 1
            return [UNANSWERED] * len(pairs)
        return super().compare(pairs)

    def describe(self):
        info = super().describe()
        info["stats"].update(pairs=len(self.asked), cost_usd=self.cost)
        if self.stop_after is not None and len(self.batches) > self.stop_after:
            info["stats"]["stopped"] = "max_requests"
        return info

    def close(self):
        self.closed = True


def _rater(judge, name="r"):
    return RaterConfig("counting", name=name, judge=judge)


def test_prepare_schedules_with_seed_0_by_default(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        assert store.pairs() == [tuple(p) for p in make_schedule(len(TEXTS), 2, 0)]


def test_prepare_names_bad_rows_given_in_code(tmp_path):
    with pytest.raises(ValueError, match=r"^rows"):
        prepare(tmp_path, [{"text": "a"}, {"no text": "b"}, {"text": "c"}])


def test_an_exact_tie_is_stored_as_an_invalid_decision(tmp_path):
    class HalfJudge(CountingJudge):
        def compare(self, pairs):
            return [0.5, 0.75, 0.25] + [1.0] * (len(pairs) - 3)

    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        run_rater(store, _rater(HalfJudge()), progress=False)
        first = store.history("r")[:3]
        pairs = store.pairs()
        assert [r["harder"] for r in first] == [None, pairs[1][0], pairs[2][1]]


def test_default_batches_of_32_and_batches_of_one_allowed(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        judge = RecordingJudge()
        run_rater(store, _rater(judge), progress=False)
        assert judge.batches == [32, 16]
        one = RecordingJudge()
        run_rater(store, _rater(one, "s"), batch_size=1, progress=False)
        assert one.batches == [1] * 48


def test_the_progress_bar_is_on_by_default_and_counts_stored_answers(tmp_path, capsys):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        with pytest.raises(Killed):
            run_rater(store, _rater(CountingJudge(die_after=3)), batch_size=8, progress=False)
        capsys.readouterr()
        run_rater(store, _rater(CountingJudge()), batch_size=8)
        err = capsys.readouterr().err
        assert "rater r" in err and "24/48" in err and "48/48" in err and "56/48" not in err
        run_rater(store, _rater(CountingJudge(), "quiet"), batch_size=8, progress=False)
        assert capsys.readouterr().err == ""


def test_seconds_per_decision_are_the_batch_time_shared_by_its_pairs(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        run_rater(store, _rater(RecordingJudge(sleep=0.08)), batch_size=8, progress=False)
        per = store.elapsed("r")
        assert len(per) == 48 and all(0.08 / 8 <= s < 0.3 for s in per)  # not the batch's time (>= .64 s)


def test_a_spent_budget_stops_the_rater_but_a_batch_of_failures_does_not(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        spent = RecordingJudge(stop_after=2)
        with pytest.warns(RuntimeWarning, match="32 of 48 matches have no answer"):
            run_rater(store, _rater(spent), batch_size=8, progress=False)
        assert spent.batches == [8, 8, 8]  # the third batch came back unsent: no fourth
        texts, pairs = store.texts(), store.pairs()
        unlucky = RecordingJudge(fail={(texts[a], texts[b]) for a, b in pairs[:8]})
        with pytest.warns(RuntimeWarning, match="8 of 48 matches have no answer"):
            run_rater(store, _rater(unlucky, "s"), batch_size=8, progress=False)
        assert unlucky.batches == [8] * 6  # every batch asked, though the first got no answer


def test_a_resumed_rater_adds_up_its_counters_and_leaves_the_others(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        texts, pairs = store.texts(), store.pairs()
        first = RecordingJudge(fail={(texts[a], texts[b]) for a, b in pairs[:8]})
        with pytest.warns(RuntimeWarning):
            run_rater(store, _rater(first), batch_size=8, progress=False)
        again = RecordingJudge(cost=None)  # a judge that cannot tell its cost this time
        info = run_rater(store, _rater(again), batch_size=8, progress=False)
        assert info["stats"]["pairs"] == 48 + 8 and info["stats"]["cost_usd"] is None
        assert store.rater_info("r")["stats"]["pairs"] == 56


def test_a_judge_given_by_the_caller_is_not_closed(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        judge = RecordingJudge()
        run_rater(store, _rater(judge), progress=False)
        assert not judge.closed


def test_run_rater_warnings_should_point_at_the_caller(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        texts, (a, b) = store.texts(), store.pairs()[0]
        with pytest.warns(RuntimeWarning, match="1 of 48") as caught:
            run_rater(store, _rater(CountingJudge(fail={(texts[a], texts[b])})), progress=False)
    assert caught[0].filename == __file__


def test_build_defaults_batches_of_32_with_a_progress_bar_and_names_the_dataset_after_its_file(tmp_path, capsys):
    source = tmp_path / "my_texts.txt"
    source.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    judge = RecordingJudge()
    result = build(source, [_rater(judge)], tmp_path / "out", matches_per_text=2)
    assert judge.batches == [32, 16] and "rater r" in capsys.readouterr().err
    assert "pretty_name: ARTS dataset my_texts\n" in (tmp_path / "out" / "README.md").read_text(encoding="utf-8")
    assert result is not None


def test_build_checks_matches_per_text_before_making_the_folder_and_not_for_a_fixed_schedule(tmp_path):
    with pytest.raises(ValueError, match="5 matches per text is more than 3 texts allow"):
        build(TEXTS[:3], [_rater(RecordingJudge())], tmp_path / "out", matches_per_text=5, progress=False)
    assert not (tmp_path / "out").exists()
    build(TEXTS[:3], [_rater(RecordingJudge())], tmp_path / "fixed", pairs=[(0, 1), (1, 2), (2, 0)], progress=False)


def test_human_star_with_nobody_yet_stops_the_build_unless_incomplete_is_allowed(tmp_path):
    raters = [_rater(RecordingJudge()), "human:*"]
    with pytest.raises(IncompleteRatingsError, match="no human has rated"):
        build(TEXTS, raters, tmp_path / "out", matches_per_text=2, progress=False)
    result = build(
        TEXTS,
        [_rater(RecordingJudge()), "human:*"],
        tmp_path / "out",
        matches_per_text=2,
        progress=False,
        allow_incomplete=True,
    )
    assert result is not None


def test_the_legacy_nulls_warning_points_at_the_caller(tmp_path):
    with prepare(tmp_path, [{"text": t} for t in TEXTS], matches_per_text=2) as store:
        store.record("r", 0, None)
        store.set_meta(legacy_null={"r": 1})  # as a store written before format 2 says
        with pytest.warns(RuntimeWarning, match="1 stored decisions without an answer") as caught:
            run_rater(store, _rater(CountingJudge()), progress=False)
    assert caught[0].filename == __file__
