"""Meaning kept (arts_metric.systems.meaning): source recall over the real bundled MiniLM
encoder, on the example systems; no stand-ins."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arts_metric.systems import compare_systems
from arts_metric.systems.meaning import FLAG_BELOW, RECALL_SHARE, meaning_checks, meaning_kept, system_checks

COMPARE = Path(__file__).resolve().parent.parent / "examples" / "compare"


def _lines(name: str) -> list[str]:
    return (COMPARE / f"{name}.txt").read_text(encoding="utf-8").splitlines()


def _first_words(texts: list[str], n: int) -> list[str]:
    return [" ".join(t.split()[:n]) for t in texts]


def _first_half(texts: list[str]) -> list[str]:
    return [" ".join(t.split()[: len(t.split()) // 2]) for t in texts]


def test_sources_cut_short_keep_less_than_real_rewrites_and_are_flagged():
    sources = _lines("sources")
    checks = system_checks(
        {
            "light": _lines("light"),
            "strong": _lines("strong"),
            "first 5 words": _first_words(sources, 5),
            "first half": _first_half(sources),
        },
        sources,
    )
    for cut in ("first 5 words", "first half"):
        assert (checks[cut]["meaning_kept"] < checks["light"]["meaning_kept"]).all(), cut
    assert (checks["first 5 words"]["recall"] < checks["strong"]["recall"]).all()
    assert checks["first half"]["flagged"].all(), checks["first half"]
    # one sentence holds few content pieces, so a cut is flagged only when its drop is beyond
    # chance: 5 of these 8 (about 92% of aligned development sentences, benchmarks/meaning_guard.py)
    assert checks["first 5 words"]["flagged"].sum() >= 5, checks["first 5 words"]
    # the first half is said word for word: its first half is fully recalled, the rest is not
    assert (checks["first half"]["recall_head"] > 0.85).all() and checks["first half"]["cut_short"].all()
    for real in ("light", "strong"):
        assert not checks[real]["flagged"].any(), (real, checks[real])


def test_a_copy_keeps_everything_and_an_unrelated_output_is_flagged():
    sources = _lines("sources")
    same = meaning_checks(sources, sources)
    assert same["recall"].to_numpy() == pytest.approx(1.0, abs=1e-5) and not same["flagged"].any()
    unrelated = meaning_checks(sources[1:] + sources[:1], sources)
    assert (unrelated["recall"] < FLAG_BELOW).all() and unrelated["low_recall"].all() and unrelated["flagged"].all()


def test_an_output_without_a_word_keeps_nothing():
    sources = _lines("sources")[:3]
    checks = meaning_checks(["!", "", "42"], sources)
    assert checks["recall"].tolist() == [0.0, 0.0, 0.0] and checks["flagged"].all()


def test_checks_are_a_function_of_each_pair_alone():
    sources, cut = _lines("sources"), _first_half(_lines("sources"))
    together = meaning_checks(cut, sources)
    alone = meaning_checks(cut[2:3], sources[2:3])
    assert alone.iloc[0].to_dict() == together.iloc[2].to_dict()
    board = meaning_kept({"cut": cut[2:3], "light": _lines("light")[2:3]}, sources[2:3])
    assert board.set_index("system").loc["cut", "meaning_kept"] == together["meaning_kept"].iloc[2]


#: An abstract-like source that repeats its terms in both halves, and a simplification in other words.
VITAMIN_D = (
    "Researchers compared vitamin D supplements with placebo in older adults with osteoporosis to find out "
    "whether vitamin D supplements prevent hip fractures in older adults. Twelve trials of vitamin D "
    "supplements against placebo in 9,000 older adults with osteoporosis were included. Vitamin D "
    "supplements did not reduce hip fractures compared with placebo in older adults with osteoporosis, and "
    "kidney stones were slightly more common with vitamin D supplements."
)
VITAMIN_D_SIMPLER = (
    "In twelve studies, elderly people with weak bones who took vitamin pills broke their hips just as often "
    "as those who took dummy pills, and they got kidney stones a bit more often."
)


def _kept(row) -> float:
    start = RECALL_SHARE * row["recall_start"] + (1 - RECALL_SHARE) * row["new_start"]
    end = RECALL_SHARE * row["recall_end"] + (1 - RECALL_SHARE) * row["new_end"]
    return min(start, end)


def test_meaning_kept_is_what_the_worse_kept_end_keeps():
    """A source's first half said word for word keeps its start fully, and its whole-source
    recall can beat a real simplification's; meaning kept is what it keeps of the end it
    dropped, below the simplification's, which keeps both ends alike."""
    source = (
        "The committee, after reviewing the auditors' report on the hospital's finances, postponed its decision "
        "on the new surgical wing. It asked the treasurer to present revised cost estimates, including staffing "
        "and equipment, at the next quarterly meeting in March."
    )
    simpler = "The committee read the report and waited to decide on the new wing. The treasurer must bring new costs in March."
    cut = _first_half([source])[0]
    checks = meaning_checks([simpler, cut], [source, source])
    real, half = checks.iloc[0], checks.iloc[1]
    for row in (real, half):
        assert row["meaning_kept"] == pytest.approx(_kept(row), abs=1e-12)
        assert 0 <= row["new_start"] <= 1 and 0 <= row["new_end"] <= 1
    assert half["recall_start"] > 0.95 and half["new_start"] > 0.9 and half["new_end"] < 0.1, checks
    assert half["meaning_kept"] < real["meaning_kept"], checks
    # the whole-source recall ranks them the other way: the reason meaning kept is not that
    assert half["recall"] > real["recall"], checks


def test_terms_the_source_repeats_do_not_let_a_cut_claim_the_half_it_dropped():
    """A source that repeats its terms in both halves (as an abstract does): its first half
    said word for word matches most of its second half, so the plain recall of the
    worse-kept half ranks the cut far above a simplification in other words; counting in each
    end only what the rest of the source does not already say ranks the cut below."""
    source, simpler = VITAMIN_D, VITAMIN_D_SIMPLER
    checks = meaning_checks([simpler, _first_half([source])[0]], [source, source])
    real, half = checks.iloc[0], checks.iloc[1]
    plain = {name: min(row["recall_head"], row["recall_tail"]) for name, row in (("real", real), ("half", half))}
    assert plain["half"] > plain["real"] + 0.2, checks  # the repeated terms: the cut's dropped half looks kept
    assert half["new_end"] < 0.05 < real["new_end"], checks
    assert half["meaning_kept"] < real["meaning_kept"], checks


def test_a_cut_past_the_middle_keeps_nothing_of_the_end():
    """A source cut in words a little after its middle holds more than half of its content
    word pieces, and so part of a second half counted from the middle; the end (the last
    ``END_SHARE`` of pieces) stops short of the middle, so the cut still keeps nothing of it
    beyond what its beginning already says, and ranks below a real simplification."""
    source, simpler = VITAMIN_D, VITAMIN_D_SIMPLER
    words = source.split()
    cut = " ".join(words[: round(0.57 * len(words))])  # 57% of the words
    checks = meaning_checks([simpler, cut], [source, source])
    real, past = checks.iloc[0], checks.iloc[1]
    assert past["recall_tail"] > 0.5 and past["recall_start"] > 0.95, checks  # part of the second half is said
    assert past["new_end"] < 0.05 < real["new_end"], checks
    assert past["meaning_kept"] < real["meaning_kept"], checks


def test_a_count_mismatch_names_the_system():
    with pytest.raises(ValueError, match="'short'"):
        meaning_kept({"short": ["one"]}, ["a", "b"])


def test_a_long_source_cut_to_its_first_part_is_flagged():
    """Every sentence is encoded alone, so the end of a long source counts as much as its
    beginning (the encoder reads only 256 word pieces at a time)."""
    first = " ".join(_lines("sources") + _lines("light"))
    teams = ("Rovers", "United", "City", "Athletic", "Wanderers", "Albion")
    second = " ".join(
        f"In the {k + 1}th minute the {teams[k % 6]} striker scored from a corner, and the visiting goalkeeper "
        f"was shown a yellow card for time-wasting before the referee added {k % 5 + 2} minutes of stoppage time."
        for k in range(12)
    )
    source = first + " " + second
    checks = meaning_checks([first, source], [source, source])
    assert checks["flagged"].tolist() == [True, False], checks
    assert checks["cut_short"].iloc[0] and checks["recall_tail"].iloc[0] < 0.6 < checks["recall_head"].iloc[0]


def test_compare_systems_reports_meaning_kept_with_sources():
    sources = _lines("sources")
    outputs = {"light": _lines("light"), "first half": _first_half(sources)}
    result = compare_systems(outputs, sources=sources, views="pool", n_resamples=50, n_permutations=50)
    board = result.leaderboard.set_index("system")
    assert board.loc["light", "meaning_kept"] > board.loc["first half", "meaning_kept"]
    assert board.loc["first half", "meaning_flagged"] == len(sources) and board.loc["light", "meaning_flagged"] == 0
    per = result.per_output
    assert np.array_equal(per.loc[per["system"] == "first half", "meaning_flagged"].to_numpy(), [True] * len(sources))
    assert "meaning kept (flagged)" in result.to_markdown()
    without = compare_systems(outputs, sources=sources, views="pool", n_resamples=50, n_permutations=50, meaning=False)
    assert "meaning_kept" not in without.leaderboard and "recall" not in without.per_output
    no_sources = compare_systems(outputs, views="pool", n_resamples=50, n_permutations=50)
    assert "meaning_kept" not in no_sources.leaderboard


def test_arts_compare_prints_the_meaning_column(tmp_path):
    sources = _lines("sources")
    (tmp_path / "cut.txt").write_text("\n".join(_first_half(sources)) + "\n", encoding="utf-8")
    args = ["--system", f"light={COMPARE / 'light.txt'}", "--system", f"cut={tmp_path / 'cut.txt'}"]
    cmd = [sys.executable, "-m", "arts_metric", "compare", *args, "--sources", str(COMPARE / "sources.txt")]
    done = subprocess.run(
        [*cmd, "--views", "pool", "--resamples", "50", "--permutations", "50", "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "meaning kept (flagged)" in done.stdout and "Meaning kept: source recall" in done.stdout
    cut_row = next(line for line in done.stdout.splitlines() if "| cut |" in line)
    assert f"({len(sources)})" in cut_row
    header = (tmp_path / "o" / "leaderboard.csv").read_text(encoding="utf-8").splitlines()[0]
    assert "meaning_kept" in header and "meaning_flagged" in header
