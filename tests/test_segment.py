from arts_metric.segment import chunk_text, split_sentences


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
