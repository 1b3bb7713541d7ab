"""One converter from option text to values, by the declared type: spec ``?k=v``
options and build ``k=v`` tokens alike, for every judge factory."""

from __future__ import annotations

import os
from typing import Any, Sequence

import pytest

from arts_metric import data as arts_data
from arts_metric.judges import get_judge
from arts_metric.judges.learned import LearnedJudge
from arts_metric.llm.options import LLMOptions
from arts_metric.options import convert_option, convert_options, option_types, parse_options

GPT4 = "gpt-4-1106-preview"


@pytest.mark.parametrize(
    "annotation, text, value",
    [
        ("bool", "true", True),
        ("bool", "YES", True),
        ("bool", "on", True),
        ("bool", "1", True),
        ("bool", "false", False),
        ("bool", "No", False),
        ("bool", "off", False),
        ("bool", "0", False),
        ("int", " 8 ", 8),
        ("int | None", "none", None),
        ("int | None", "", None),
        ("int | None", "null", None),
        ("float", "0.70", 0.7),
        ("float | None", "1", 1.0),
        ("float | None", "None", None),
        ("str", "medical", "medical"),
        ("str", "1", "1"),
        ("str | None", "none", None),
        ("Any", " a.jsonl ", "a.jsonl"),
        ("str | os.PathLike | None", "/data", "/data"),
        (bool, "true", True),
        (int | None, "3", 3),
        (float, "2e-1", 0.2),
        (str | None, "null", None),
        (Any, "x", "x"),
        ("int | str", "5", 5),
        ("int | str", "five", "five"),
    ],
)
def test_convert_option_by_declared_type(annotation, text, value):
    got = convert_option("opt", annotation, text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    "annotation, text, message",
    [
        ("bool", "maybe", "opt='maybe' is not a valid bool"),
        ("int", "1.5", "opt='1.5' is not a valid int"),
        ("int | None", "many", "opt='many' is not a valid int"),
        ("float", "fast", "opt='fast' is not a valid float"),
        ("Sequence[str] | None", "a b", "a Sequence cannot be given as text"),
        (Sequence[str], "a", "a Sequence cannot be given as text"),
    ],
)
def test_convert_option_errors_name_option_and_text(annotation, text, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("[", r"\[")):
        convert_option("opt", annotation, text)


def test_parse_options_query_and_tokens():
    assert parse_options("strategy=pointwise&concurrency=8") == {"strategy": "pointwise", "concurrency": "8"}
    assert parse_options("persona=social+science&x=%26") == {"persona": "social science", "x": "&"}  # URL decoding
    assert parse_options("") == {}
    assert parse_options("persona=a+b temperature=0.7", sep=None) == {
        "persona": "a+b",
        "temperature": "0.7",
    }  # literal
    for bad, kw in [("a=1&a=2", {}), ("strategy", {}), ("a=1 a=2", {"sep": None}), ("a=1 b", {"sep": None})]:
        with pytest.raises(ValueError):
            parse_options(bad, **kw)


def test_convert_options_checks_names_and_converts_only_text():
    types = {"k": "int", "persona": "str | None"}
    assert convert_options({"k": "3", "topic": "law"}, types, aliases={"topic": "persona"}) == {
        "k": 3,
        "persona": "law",
    }
    assert convert_options({"k": 3.5}, types) == {"k": 3.5}  # a value is passed as it is (the receiver checks it)
    with pytest.raises(ValueError, match=r"unknown option 'kk' in my judge; known options: k, persona, extra"):
        convert_options({"kk": "1"}, types, "my judge", also_known=("extra",))
    with pytest.raises(ValueError, match="given twice"):
        convert_options({"persona": "a", "topic": "b"}, types, aliases={"topic": "persona"})


def test_option_types_from_a_dataclass_or_a_signature():
    llm = option_types(LLMOptions)
    assert (
        llm["concurrency"] == "int"
        and llm["temperature"] == "float | None"
        and len(llm) == len(LLMOptions.__dataclass_fields__)
    )
    learned = option_types(LearnedJudge, exclude=("weights",))
    assert set(learned) == {"device", "precision", "progress", "threads"}
    assert convert_options({"device": "cpu", "precision": "int8", "progress": "false", "threads": "2"}, learned) == {
        "device": "cpu",
        "precision": "int8",
        "progress": False,
        "threads": 2,
    }

    def factory(rest: str, texts: Sequence[str] | None = None, *, flag: bool = False, **kwargs: Any) -> None:
        pass

    assert option_types(factory, exclude=("rest",)) == {"texts": "Sequence[str] | None", "flag": "bool"}


def test_openai_options_as_text_keep_their_declared_types():
    """Arguments given as text (a build's ``k=v``) convert exactly like spec options;
    a persona that looks like a number stays a string (JSON parsing would not)."""
    j = get_judge(
        "openai:m@http://127.0.0.1:9/v1", concurrency="8", both_orders="yes", temperature="0.50", persona="1"
    )
    o = j.options
    assert (o.concurrency, o.both_orders, o.temperature, o.persona) == (8, True, 0.5, "1")
    spec = get_judge("openai:m@http://127.0.0.1:9/v1?concurrency=8&both_orders=yes&temperature=0.50&persona=1")
    assert spec.options == o and spec.name == j.name and spec.score_key == j.score_key
    with pytest.raises(ValueError, match="concurrency='many' is not a valid int"):
        get_judge("openai:m@http://127.0.0.1:9/v1", concurrency="many")


def test_history_options_as_text(data_dir):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    history = arts_data.load_history("arts94", GPT4, "pairwise-run1", data_dir)
    pairs = [(texts[m.a], texts[m.b]) for m in history[:20]]
    expected = [m.outcome_a for m in history[:20]]
    spec = f"history:arts94/{GPT4}/pairwise-run1"
    assert get_judge(spec, data_dir=str(data_dir), pool="arts94").compare(pairs) == expected
    assert get_judge(spec, data_dir=os.fspath(data_dir), pool="none").compare(pairs) == expected  # none = not set
    with pytest.raises(ValueError, match="texts='a b': a Sequence cannot be given as text"):
        get_judge(spec, data_dir=str(data_dir), texts="a b")
    with pytest.raises(ValueError, match="unknown options for the history judge: bogus"):
        get_judge(spec, bogus="1")
