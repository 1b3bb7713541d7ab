"""The meaning-kept guard of the Compare systems view (arts_metric.systems.meaning):
real MiniLM embeddings of the example systems, no stand-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from arts_metric.systems.meaning import CHUNK_WORDS, meaning_checks, meaning_kept

COMPARE = Path(__file__).resolve().parent.parent / "examples" / "compare"


def _lines(name: str) -> list[str]:
    return (COMPARE / f"{name}.txt").read_text(encoding="utf-8").splitlines()


def _first_words(texts: list[str], n: int = 9) -> list[str]:
    return [" ".join(t.split()[:n]) for t in texts]


def test_a_system_that_keeps_the_first_nine_words_is_flagged():
    sources = _lines("sources")
    cut = _first_words(sources)
    checks = meaning_checks(cut, sources)
    assert checks["cut_short"].all(), checks
    # similarity alone does not see it: the first nine words stay close to their source
    assert (checks["similarity"] > 0.5).all() and not checks["unrelated"].any()
    board = meaning_kept({"light": _lines("light"), "strong": _lines("strong"), "cut": cut}, sources)
    flagged = dict(zip(board["system"], board["meaning_flagged"]))
    assert flagged == {"light": 0, "strong": 0, "cut": len(sources)}


def test_genuine_rewrites_are_not_cut_short():
    sources = _lines("sources")
    for name in ("light", "strong"):
        assert not meaning_checks(_lines(name), sources)["flagged"].any(), name


def test_an_unrelated_output_is_flagged_and_a_copy_is_not():
    sources = _lines("sources")
    unrelated = sources[1:] + sources[:1]
    checks = meaning_checks(unrelated, sources)
    assert checks["unrelated"].all() and checks["flagged"].all()
    same = meaning_checks(sources, sources)
    assert same["similarity"].to_numpy() == pytest.approx(1.0, abs=1e-5) and not same["flagged"].any()


def test_checks_are_a_function_of_each_pair_alone():
    sources, cut = _lines("sources"), _first_words(_lines("sources"))
    together = meaning_checks(cut, sources)
    alone = meaning_checks(cut[2:3], sources[2:3])
    assert alone.iloc[0].to_dict() == together.iloc[2].to_dict()


def test_a_count_mismatch_names_the_system():
    with pytest.raises(ValueError, match="'short'"):
        meaning_kept({"short": ["one"]}, ["a", "b"])


def test_a_long_source_cut_to_its_first_part_is_flagged():
    """The encoder reads 256 word pieces: the end of a long source counts only because
    long texts are embedded chunk by chunk."""
    first = " ".join(_lines("sources") + _lines("light"))
    teams = ("Rovers", "United", "City", "Athletic", "Wanderers", "Albion")
    second = " ".join(
        f"In the {k + 1}th minute the {teams[k % 6]} striker scored from a corner, and the visiting goalkeeper "
        f"was shown a yellow card for time-wasting before the referee added {k % 5 + 2} minutes of stoppage time."
        for k in range(12)
    )
    source = first + " " + second
    assert len(source.split()) > 2 * CHUNK_WORDS
    checks = meaning_checks([first, source], [source, source])
    assert checks["flagged"].tolist() == [True, False], checks
    assert checks["similarity"].iloc[0] < 0.9 < checks["similarity"].iloc[1]
