"""A resumed build asks only the matches without a stored answer (issue 15, found
by a planted bug: a resume that asked every match again passed the whole
suite, because the LLM cache hid the repeats and stored rows are never
overwritten).

The judges here have no cache: every pair that reaches ``compare`` is counted.
"""

from __future__ import annotations

import pytest

from arts_metric.build import RaterConfig, prepare, run_rater
from arts_metric.judges.base import UNANSWERED, Judge

_WORDS = ("river", "council", "bread", "photosynthesis", "tiny", "regulation", "dog", "jurisprudence")
#: 24 self-written texts of different lengths (longer = harder for the judges below)
TEXTS = [f"Text {i}: " + " ".join(_WORDS[(i * 3 + j) % len(_WORDS)] for j in range(1 + i % 9)) + "."
         for i in range(24)]


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
        return [UNANSWERED if p in self.fail else None if p in self.invalid
                else float((len(p[0]) > len(p[1])) != self.flip) for p in pairs]


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
        first = CountingJudge(fail={(texts[pairs[m][0]], texts[pairs[m][1]]) for m in failed},
                              invalid={(texts[pairs[5][0]], texts[pairs[5][1]])})
        with pytest.warns(RuntimeWarning, match="3 of 48 matches have no answer"):
            assert run_rater(store, RaterConfig("counting", name="r", judge=first), progress=False)["missing"] == 3
        assert sorted(store.missing("r")) == sorted(failed)
        assert [r["match"] for r in store.history("r") if r["harder"] is None] == [5]  # invalid: decided
        again = CountingJudge()
        run_rater(store, RaterConfig("counting", name="r", judge=again), progress=False)
        assert sorted(_asked_matches(store, again)) == sorted(failed)
        assert store.missing("r") == []
