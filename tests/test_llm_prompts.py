"""Prompt templates (the papers' wording) and strict answer parsing."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from arts_metric.llm.parsing import (
    UnusableAnswer,
    parse_cefr,
    parse_id_list,
    parse_letter,
    parse_rating_with_reason,
    parse_unit_score,
)
from arts_metric.llm.prompts import available_templates, load_template
from arts_metric.llm.strategies import (
    ListwiseStrategy,
    PairwiseStrategy,
    PointwiseStrategy,
)


def _words(text: str) -> list[str]:
    return re.sub(r"[^A-Za-z0-9?,.;:'\"-]+", " ", text).split()


def _in_order(words: list[str], paper: list[str], max_gap: int) -> bool:
    """``words`` occur in ``paper`` in this order, with at most ``max_gap`` foreign words
    in between in all (the PDF extraction splits some prompts around a table)."""
    for start in (i for i, w in enumerate(paper) if w == words[0]):
        j, gaps = start, 0
        for w in words[1:]:
            k = j + 1
            while k < len(paper) and paper[k] != w and gaps + (k - j - 1) <= max_gap:
                k += 1
            if k >= len(paper) or paper[k] != w:
                break
            gaps += k - j - 1
            j = k
        else:
            return True
    return False


def _in_window(words: list[str], paper: list[str], slack: int = 5) -> bool:
    """All of ``words`` (with multiplicity) within one window of ``len(words) + slack``
    paper words: the PDF text scrambles the word order of one line of A.2.4."""
    need = Counter(words)
    size = len(words) + slack
    return any(not (need - Counter(paper[i : i + size])) for i in range(0, max(1, len(paper) - size + 1)))


@pytest.fixture(scope="module")
def arts_paper(data_dir):
    """The ARTS paper's words (read at run time from the shared seeds, never copied)."""
    seeds = data_dir.parent / "seeds"
    (path,) = seeds.glob("000_*.txt")
    return _words(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", ["arts_pairwise", "arts_pairwise_expert", "arts_listwise", "arts_pointwise"])
def test_arts_prompts_are_the_papers_wording(arts_paper, name):
    tpl = load_template(name)
    assert tpl.verbatim
    prose = [s for s in re.split(r"(?<=[.?])\s+(?=[A-Z])", tpl.text.replace("```", " ")) if "{" not in s]
    assert len(prose) >= 4
    joined = " ".join(arts_paper)
    # The opening sentence is word for word in appendix A.2 ...
    assert " ".join(_words(prose[0])) in joined
    # ... and every sentence's words are there in order (the PDF text interleaves a table
    # and a figure caption with two of the prompts) or, for one scrambled line, side by side.
    for sentence in prose:
        words = _words(sentence)
        assert _in_order(words, arts_paper, max_gap=1500) or _in_window(words, arts_paper), sentence


def test_templates_render_every_placeholder_once_and_literally():
    for name in available_templates():
        tpl = load_template(name)
        values = {p: f"<<{p} {{TEXT}} {{0}}>>" for p in tpl.placeholders}
        out = tpl.render(**values)
        for p in tpl.placeholders:
            assert out.count(values[p]) == 1  # braces inside values are not re-interpreted
            out = out.replace(values[p], "")
        assert not re.search(r"\{[A-Z_]+\}", out)
        assert re.match(rf"{name}/v\d+:[0-9a-f]{{12}}$", tpl.version)
    with pytest.raises(ValueError, match="missing"):
        load_template("arts_pairwise").render(TEXT_A="a")
    with pytest.raises(ValueError, match="unknown prompt template"):
        load_template("nope")


def test_strategy_messages():
    pw = PairwiseStrategy()
    msgs = pw.messages("first text", "second text")
    assert [m["role"] for m in msgs] == ["user"]
    content = msgs[0]["content"]
    assert content.index("first text") < content.index("second text")
    assert "```\nfirst text\n```" in content
    assert 'expert on the topic "geography"' in PairwiseStrategy("geography").messages("a", "b")[0]["content"]
    assert pw.prob_first_harder("A") == 0.0 and pw.prob_first_harder("B") == 1.0  # the answer names the EASIER text
    lw = ListwiseStrategy()
    content = lw.messages(["t0", "t1", "t2"])[0]["content"]
    assert "text id 0: ```t0```\ntext id 1: ```t1```\ntext id 2: ```t2```" in content
    parse = lw.parser(4)
    assert parse("2, 0, 9, 0, 1") == {"order": [2, 0, 1], "unknown": 1, "duplicates": 1, "missing": 1}
    with pytest.raises(UnusableAnswer, match="only 1 of 4"):
        parse("3")
    assert lw.positions([2, 0, 1], 4)[:3] == [1 / 3, 2 / 3, 0.0]
    cefr = PointwiseStrategy("cefr", examples=(("e1", "A1"), ("e2", "c2"), ("e3", "B1")), k=2)
    a, b = cefr.messages("target")[0]["content"], cefr.messages("target")[0]["content"]
    assert a == b and a.count("Level: ") == 2 and a.rstrip().endswith("without any further text.")
    assert PointwiseStrategy("cefr").messages("t")[0]["content"].count("Level: ") == 0


@pytest.mark.parametrize("answer", ["A", "a", " B\n", "B.", "**A**", "'B'", "`A`", "Answer: B", "Text A", "(B)"])
def test_letter_accepts_formatting_noise(answer):
    assert parse_letter(answer) in ("A", "B")


@pytest.mark.parametrize(
    "answer", ["", "C", "AB", "A or B", "Text B is easier to understand.", "Both", "I think A", None]
)
def test_letter_rejects_talk(answer):
    with pytest.raises(UnusableAnswer):
        parse_letter(answer)


def test_unit_score():
    for answer, value in [
        ("0.35", 0.35),
        (" .5 ", 0.5),
        ("1", 1.0),
        ("0.0.", 0.0),
        ("Score: 0.7", 0.7),
        ("**0.2**", 0.2),
    ]:
        assert parse_unit_score(answer) == value
    for bad in ["1.5", "-0.1", "0.3 or 0.4", "about 0.5", "nan", "", "0,5"]:
        with pytest.raises(UnusableAnswer):
            parse_unit_score(bad)


def test_rating_with_reason():
    assert parse_rating_with_reason('{"answer": 4, "reason": "Clear."}') == (4.0, "Clear.")
    assert parse_rating_with_reason('```json\n{"score": "2", "reason": "Jargon."}\n```') == (2.0, "Jargon.")
    assert parse_rating_with_reason("Answer: 4.5\nReason: short sentences") == (4.5, "short sentences")
    for bad in [
        '{"answer": 6, "reason": "x"}',
        '{"answer": 3}',
        '{"answer": 3.3, "reason": "x"}',
        "4",
        '{"answer": true, "reason": "x"}',
    ]:
        with pytest.raises(UnusableAnswer):
            parse_rating_with_reason(bad)


def test_cefr_and_id_list():
    assert [parse_cefr(a) for a in ("A1", "b2", "Level: C2", "**B1**.", "CEFR level: A2")] == [1, 4, 6, 3, 2]
    for bad in ("D1", "B1/B2", "between B1 and B2", "7"):
        with pytest.raises(UnusableAnswer):
            parse_cefr(bad)
    assert parse_id_list("17, 1, 2") == [17, 1, 2]
    assert parse_id_list("[3,1,\n2]") == [3, 1, 2]
    assert parse_id_list("4 5 6.") == [4, 5, 6]
    for bad in ("ids: 1, 2", "1, 2, and 3", "", "one, two"):
        with pytest.raises(UnusableAnswer):
            parse_id_list(bad)


def test_reasoning_block_before_the_answer_is_not_the_answer():
    from arts_metric.llm.parsing import UnusableAnswer, parse_letter, parse_unit_score

    assert parse_letter("<think>A has jargon, B does not.</think>\n\nB") == "B"
    assert parse_unit_score("<think>\nmostly plain words\n</think>0.3") == 0.3
    with pytest.raises(UnusableAnswer):
        parse_letter("<think>A has jargon.</think> B is easier because it is short")
    with pytest.raises(UnusableAnswer):  # reasoning alone is no answer
        parse_letter("<think>B</think>")


def test_rating_scale_ends_are_allowed():
    assert parse_rating_with_reason('{"answer": 1, "reason": "Plain."}') == (1.0, "Plain.")
    assert parse_rating_with_reason('{"answer": 5, "reason": "Dense."}') == (5.0, "Dense.")
    assert parse_rating_with_reason('{"answer": 0, "reason": "x"}', low=0, high=10) == (0.0, "x")


@pytest.mark.parametrize("value", ["null", '"four"', "[4]", '{"n": 4}'])
def test_a_rating_that_is_no_number_is_unusable(value):
    with pytest.raises(UnusableAnswer, match="not a number"):
        parse_rating_with_reason(f'{{"answer": {value}, "reason": "x"}}')


@pytest.mark.parametrize("bad", ["[3, 1, 2", "3, 1, 2]"])
def test_an_id_list_with_one_bracket_is_unusable(bad):
    with pytest.raises(UnusableAnswer):
        parse_id_list(bad)


def test_garbage_that_only_ends_like_a_json_object_is_unusable():
    with pytest.raises(UnusableAnswer):
        parse_rating_with_reason("[" * 5000 + "}")


def test_a_deeply_nested_json_reply_is_unusable_not_a_crash():
    with pytest.raises(UnusableAnswer):
        parse_rating_with_reason('{"answer": ' + "[" * 5000 + "]" * 5000 + ', "reason": "x"}')


def test_an_unusable_reply_is_quoted_in_the_error_cut_to_60_characters():
    fits = "x" * 60
    with pytest.raises(UnusableAnswer) as caught:
        parse_letter(fits)
    assert repr(fits) in str(caught.value)
    with pytest.raises(UnusableAnswer) as caught:
        parse_letter("y" * 200)
    assert repr("y" * 57 + "...") in str(caught.value)
