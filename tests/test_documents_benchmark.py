"""``benchmarks/documents.py`` on the development sets (read from ``../shared/dev`` or
``$ARTS_DEV_DIR``; the tests fail when they are missing): the texts it builds (length
matching, first halves, word edits, repetitions and joins) are what its figures say,
and on a few texts the default rule scores a text written twice or three times as the
text while release 0.2's team rule does not."""

from __future__ import annotations

import numpy as np
import pytest
from repo_scripts import load_script

from arts_metric.text.features import words
from arts_metric.text.sentences import split_sentences

documents = load_script("benchmarks/documents.py")


@pytest.fixture(scope="module")
def sets():
    return documents.load_sets(documents.find_dev_dir())


@pytest.fixture(scope="module")
def texts(sets):
    """Cochrane abstracts and summaries and OneStopEnglish texts of every level."""
    cochrane, onestop = sets["Cochrane"], sets["OneStopEnglish"]
    return cochrane["harder"][:20] + cochrane["easier"][:20] + documents.triples_flat(onestop["triples"][:5])


def test_the_sets_load(sets):
    assert len(sets["Cochrane"]["harder"]) == 205 and len(sets["OneStopEnglish"]["triples"]) == 60
    scitldr = documents.load_scitldr(documents.find_dev_dir())
    assert len(scitldr) == 619 and all(t and a for t, a in scitldr)


def test_length_matching_cuts_at_whole_sentences_and_keeps_at_least_one(texts):
    fifty = " ".join(["word"] * 49) + "."
    assert documents.length_matched(f"A {fifty} B {fifty} C {fifty}") == f"A {fifty} B {fifty}"
    long_first = "A " + " ".join(["word"] * 199) + ". Short one."
    assert documents.length_matched(long_first) == split_sentences(long_first)[0]
    for text in texts:
        sentences = split_sentences(text)
        cut = documents.length_matched(text)
        kept = split_sentences(cut)
        assert kept == sentences[: len(kept)] and len(kept) >= 1
        assert len(words(cut)) <= documents.MATCH_WORDS or len(kept) == 1
        if len(kept) < len(sentences):  # the next sentence would have gone past the limit
            assert len(words(cut)) + len(words(sentences[len(kept)])) > documents.MATCH_WORDS


def test_first_half():
    assert (
        documents.first_half("One is here. Two is here. Three is here. Four is here.") == "One is here. Two is here."
    )
    assert documents.first_half("One is here. Two is here. Three is here.") == "One is here."
    assert documents.first_half("One two three four five.") == "One two"
    assert documents.first_half("One.") == "One."


def test_repetition_and_joins():
    assert documents.repeat("It rains. We stay.", 3) == "It rains. We stay. It rains. We stay. It rains. We stay."
    assert documents.join("It rains.", "We stay.") == "It rains. We stay."
    text = "It rains. We stay in."
    assert split_sentences(documents.repeat(text, 2)) == split_sentences(text) * 2
    assert documents.ends_a_sentence(text) and documents.joins_at_a_sentence_end(text, "Then it stops.")
    # no full stop at the end, or a lower-case start: the last sentence runs on into the next
    assert not documents.ends_a_sentence("It rains. We stay in")
    assert not documents.ends_a_sentence("it rains. We stay in.")
    assert not documents.joins_at_a_sentence_end(text, "then it stops.")


def test_prefixes_take_the_listed_numbers_of_sentences(texts):
    for text in texts:
        n = len(split_sentences(text))
        ks = [len(p) for p in documents.prefixes(text)]
        assert ks == sorted({k for k in (1, 2, 3, 5, 8) if k < n} | {n})


@pytest.mark.parametrize("op", ["remove", "duplicate"])
def test_word_edits_leave_first_words_and_sentences_and_change_one_word(texts, op):
    rng = np.random.default_rng(0)
    step = 1 if op == "duplicate" else -1
    n_edits = 0
    for text in texts:
        for pre in documents.prefixes(text):
            edited = documents.edit_word(pre, op, rng)
            if edited is None:
                continue
            n_edits += 1
            after = split_sentences(edited)
            before = " ".join(pre)
            assert len(after) == len(pre) == len(split_sentences(before))
            ascii_quotes = len(split_sentences(before, legacy=True))  # release 0.2's splitter
            assert len(split_sentences(edited, legacy=True)) == ascii_quotes
            assert [s.split()[0] for s in after] == [s.split()[0] for s in pre]
            assert [s.split()[-1] for s in after] == [s.split()[-1] for s in pre]
            assert len(words(edited)) == len(words(before)) + step
            assert sum(a != b for a, b in zip(after, pre)) == 1
    assert n_edits > 100
    assert documents.edit_word(["Two words."], op, rng) is None  # only a first and a last word


def test_threshold_edits_cross_400_characters(texts):
    rng = np.random.default_rng(0)
    crossed = 0
    for text in texts:
        sentences = split_sentences(text)
        for k in range(1, len(sentences) + 1):
            length = len(" ".join(sentences[:k]))
            if abs(length - 400) <= 15:
                edited = documents.threshold_edit(sentences[:k], rng)
                if edited is not None:
                    crossed += 1
                    assert (length <= 400) != (len(edited) <= 400)
                    assert abs(len(words(edited)) - len(words(" ".join(sentences[:k])))) == 1
    assert crossed > 0


@pytest.mark.slow
def test_repetition_end_to_end(sets):
    base = sets["Cochrane"]["easier"][:3] + sets["OneStopEnglish"]["triples"][0][:1]
    base.append(split_sentences(sets["Cochrane"]["harder"][0])[0])  # one sentence
    batch = documents.Batch()
    for t in base:
        for times in (1, 2, 3):
            batch.text(documents.repeat(t, times))
    diffs = {}
    for rule, settings in documents.RULES.items():
        scored = documents.score_batch(batch, settings)
        rep = documents.repetition(base, scored.arts.__getitem__)
        diffs[rule] = np.concatenate([rep["2"], rep["3"]])
    assert diffs["0.3 (default)"].max() < 1e-9
    assert diffs["0.2 (team)"].max() > 0.01
    assert (diffs["0.2 (team)"] > 1e-9).all()
