"""Parsers of model answers run in linear time: hostile answers (long, nested, whitespace-heavy,
mixed scripts) cost a scan, never an exponential or quadratic search, and a listwise run whose
model answers adversarially finishes against the real local server."""

from __future__ import annotations

import random
import signal
import time
from contextlib import contextmanager

import pytest
from llm_server import Faults, make_server  # noqa: F401  (fixture)

from arts_metric import data as arts_data
from arts_metric.judges import get_judge
from arts_metric.llm import parsing

PARSERS = [
    parsing.parse_letter,
    parsing.parse_unit_score,
    parsing.parse_cefr,
    parsing.parse_id_list,
    parsing.parse_rating_with_reason,
]
#: Seconds one parser may take on one answer: generous (a loaded 2-core machine); linear parsing of
#: these answers takes milliseconds, the old patterns took seconds to hours on the same answers.
PER_ANSWER = 0.5


@contextmanager
def time_limit(seconds: float):
    """Interrupt the block after ``seconds`` (the regex engine checks for signals while it matches)."""

    def expire(signum, frame):
        raise TimeoutError(f"took longer than {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def parse_all(answer: str) -> float:
    """Every parser on ``answer``; the slowest parser's seconds."""
    worst = 0.0
    for parse in PARSERS:
        t = time.perf_counter()
        with time_limit(PER_ANSWER * 4):
            try:
                parse(answer)
            except parsing.UnusableAnswer:
                pass
        worst = max(worst, time.perf_counter() - t)
    return worst


#: Answers that made the earlier patterns backtrack (each at a size where they took seconds or more).
HOSTILE = {
    "ids on blank lines, then prose": "\n\n".join(str(i) for i in range(40)) + "\n\nThat is my ranking",
    "ids with tab-space runs, then a letter": " \t ".join(str(i) for i in range(2000)) + " \t x",
    "an open code fence of newlines": "```" + "\n" * 50_000 + "x",
    "a rating line of spaces": "Answer: 4" + " " * 50_000 + "x",
    "a rating followed by blank lines": "Answer: 4\n" + "\n" * 50_000 + "no reason",
    "unclosed think tags": "<think>" * 20_000,
    "whitespace only": " \t\r\n" * 50_000,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_answers_parse_in_linear_time(name):
    assert parse_all(HOSTILE[name]) < PER_ANSWER, name


def test_parsers_keep_their_meaning():
    assert parsing.parse_id_list("[3, 1,\n2].") == [3, 1, 2]
    assert parsing.parse_id_list("3\n\n1\n\n2") == [3, 1, 2]
    assert parsing.parse_id_list(" 1 ; 2 , 3,") == [1, 2, 3]
    for bad in ["1,,2", "1;2;", ", 1 2", "1 2 x", "", "[]", "That is 1 2"]:
        with pytest.raises(parsing.UnusableAnswer):
            parsing.parse_id_list(bad)
    assert parsing.parse_letter("<THINK>hmm</think>```\n**Text B**.\n```") == "B"
    assert parsing.parse_letter("Final answer: A") == "A"
    assert parsing.parse_unit_score("Score: 0.25") == 0.25
    assert parsing.parse_cefr("CEFR level: b2") == 4
    assert parsing.parse_rating_with_reason("Rating: 4\n\n  Reason: short words") == (4.0, "short words")
    with pytest.raises(parsing.UnusableAnswer):
        parsing.parse_rating_with_reason("Rating: 4\nReason:   ")


SCRIPTS = ["abc", "Текст", "文本", "نص", "ü", "🙂", "Ａ", "\u200b", "\u00a0", "\u3000"]
PIECES = [
    " ",
    "\n",
    "\t",
    "\r\n",
    ",",
    ";",
    ".",
    ":",
    "=",
    "[",
    "]",
    "{",
    "}",
    "(",
    ")",
    '"',
    "`",
    "```",
    "*",
    "<think>",
    "</think>",
    "<reasoning>",
    "Answer:",
    "Reason:",
    "Score=",
    "Level -",
    "Text ",
    "A",
    "B",
    "C2",
    "0.5",
    "7",
    "12",
    '{"answer": ',
]


def fuzz_answer(rng: random.Random) -> str:
    """A long, nested, whitespace-heavy answer in mixed scripts."""
    parts: list[str] = []
    for _ in range(rng.randint(1, 60)):
        piece = rng.choice(PIECES + SCRIPTS)
        parts.append(piece * rng.choice([1, 1, 2, 3, 10, 50, 300]))
    if rng.random() < 0.3:  # nested brackets / objects
        depth = rng.randint(1, 400)
        parts = ["[" * depth, *parts, "]" * depth]
    if rng.random() < 0.3:  # a list of ids with wide separators and a tail
        sep = rng.choice(["\n\n", " \t ", " ,  ", "\r\n\r\n", "   "])
        parts.append(sep.join(str(rng.randint(0, 999)) for _ in range(rng.randint(5, 400))))
        parts.append(rng.choice(["", " done", "\n\nThat is my ranking", sep]))
    return "".join(parts)


def test_fuzzed_answers_each_parse_within_the_bound():
    rng = random.Random(2024)
    answers = [fuzz_answer(rng) for _ in range(3000)]
    assert sum(map(len, answers)) > 3_000_000  # long answers, not toy ones
    times = [parse_all(a) for a in answers]
    assert max(times) < PER_ANSWER, f"slowest answer took {max(times):.3f} s"


def test_a_listwise_run_answered_adversarially_finishes(make_server, data_dir, tmp_path):
    """The model answers every listwise request with ids on blank lines and a sentence after them:
    unusable, so asked again and recorded invalid, in seconds (the event loop is never blocked)."""
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    hostile = "\n\n".join(str(i) for i in range(40)) + "\n\nThat is my ranking"
    server = make_server(texts, faults=Faults(rewrite=lambda kind, answer: hostile if kind == "listwise" else answer))
    judge = get_judge(
        f"openai:m@{server.base_url}", strategy="listwise", cache_dir=str(tmp_path), progress=False, max_reasks=1
    )
    with time_limit(60):  # the parser runs on this (the main) thread, where the alarm interrupts it
        latent = judge.score(texts[:12])
    assert server.stats["kind_listwise"] == server.chat_requests >= 2
    assert judge.stats.invalid >= 1 and all(x != x for x in latent)  # no ranking guessed: all NaN
