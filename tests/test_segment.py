from arts_metric.text.sentences import chunk_text, split_sentences


def test_split_sentences_keeps_abbreviations_and_paragraphs():
    text = 'Dr. Smith met J. R. Doe in the U.S. capital. Was it fun? "Yes," he said.\n\nA new paragraph'
    assert split_sentences(text) == [
        "Dr. Smith met J. R. Doe in the U.S. capital.",
        "Was it fun?",
        '"Yes," he said.',
        "A new paragraph",
    ]


def test_chunks_are_bounded_and_lossless():
    sentence = "The quick brown fox jumps over the lazy dog again and again."
    text = " ".join([sentence] * 30)
    chunks = chunk_text(text, 200)
    assert all(len(c) <= 200 for c in chunks)
    assert " ".join(chunks) == text
    assert chunk_text("Short text.", 200) == ["Short text."]


def test_default_splitter_reads_citations_titles_and_dates_as_abbreviations():
    text = (
        "Attacks were proposed before (Tabacof et al. (2016); Kos et al. (2018)). "
        "Capt. Clerke and Gov. Hickenlooper met at FT. Hood on Feb. 1, 1945. "
        "Mt. Yoshino is famous, cf. Eq. 3. The trees flower in Feb. They fall on Mar. 2 or later."
    )
    assert split_sentences(text) == [
        "Attacks were proposed before (Tabacof et al. (2016); Kos et al. (2018)).",
        "Capt. Clerke and Gov. Hickenlooper met at FT. Hood on Feb. 1, 1945.",
        "Mt. Yoshino is famous, cf. Eq. 3.",
        "The trees flower in Feb.",  # a month before a word ends its sentence
        "They fall on Mar. 2 or later.",  # ... before a number it does not
    ]


def test_legacy_splitter_keeps_release_0_2_boundaries():
    """``long_texts="team"`` and ``"chunks"`` reproduce their releases' scores: their
    splitter still cuts after the abbreviations the default learned later."""
    text = "Democratic Gov. John Hickenlooper signed it. Smith et al. (2016) agree."
    assert split_sentences(text, legacy=True) == [
        "Democratic Gov.",
        "John Hickenlooper signed it.",
        "Smith et al.",
        "(2016) agree.",
    ]
    assert split_sentences(text) == ["Democratic Gov. John Hickenlooper signed it.", "Smith et al. (2016) agree."]


def test_a_word_that_starts_sentences_ends_one_after_an_abbreviation_or_initial():
    text = (
        "We included adults with chronic hepatitis C. This review found three trials, etc. "
        "However, Dr. Smith and J. R. Doe disagree. I. A storm moved west on Sept. 9."
    )
    assert split_sentences(text) == [
        "We included adults with chronic hepatitis C.",
        "This review found three trials, etc.",
        "However, Dr. Smith and J. R. Doe disagree.",
        "I. A storm moved west on Sept. 9.",  # "I." alone is a list's number, not a sentence
    ]
    assert split_sentences(text, legacy=True)[0].startswith("We included adults with chronic hepatitis C. This review")
