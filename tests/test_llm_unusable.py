"""A judge whose answers are all unusable (another language's label, "Texte A") is reported with a
warning that shows what it answered, not silently turned into missing scores."""

from __future__ import annotations

import warnings

import pytest
from llm_server import Faults, make_server  # noqa: F401  (fixture)

from arts_metric.judges import get_judge

TEXTS = ["The cat sat.", "We ate soup for dinner.", "Mitochondria produce most of the cell's energy.", "Dogs run."]
PAIRS = [(a, b) for a in TEXTS for b in TEXTS if a != b]


def test_a_judge_answering_only_unusable_labels_warns(make_server, tmp_path):
    server = make_server(TEXTS, faults=Faults(rewrite=lambda kind, answer: "Texte A"))
    judge = get_judge(f"openai:m@{server.base_url}", cache_dir=str(tmp_path), progress=False, max_reasks=1)
    with pytest.warns(RuntimeWarning, match=r"12 of 12 answers of model 'm' were unusable.*'Texte A'"):
        decisions = judge.compare(PAIRS)
    assert decisions == [None] * len(PAIRS) and server.chat_requests == 2 * len(PAIRS)


def test_a_few_unusable_answers_do_not_warn(make_server, tmp_path):
    server = make_server(TEXTS, faults=Faults(rate_unusable=0.2, seed=3))
    judge = get_judge(f"openai:m@{server.base_url}", cache_dir=str(tmp_path), progress=False, max_reasks=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        decisions = judge.compare(PAIRS)
    assert 0 < decisions.count(None) == server.stats["unusable"] < len(PAIRS) / 2
