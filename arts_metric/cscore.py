"""C-Score: text comprehension from a reading-comprehension test log.

Temnikova & Maneva (2013), seed ``002``. Participants read a text and answer
multiple-choice questions about it; each answer is logged with whether it was
correct and how long it took. Three scores per text, **higher = easier**
(better comprehension) -- the opposite of the ARTS convention, so pass
``human_higher_is="easier"`` when a C-Score is the human side of a comparison:

* simple (eq. 1):    ``Pr / t_mean``
* complete (eq. 2):  ``Pr / Nq * sum_q Qs(q) / t_mean(q)``  with ``Qs = Na * (Lq + La)`` (eq. 3)
* textsize (eq. 4):  ``Pr * Ts / Nq * sum_q Qs(q) / t_mean(q)``

``Pr`` is the share of correct answers among all answers given about the
text (all participants, all questions); ``t_mean`` the mean time to reply
over all those answers, right or wrong; ``t_mean(q)`` the mean time to reply
to question ``q``; ``Nq`` the number of distinct questions asked about the
text; ``Na`` the number of answer options of ``q``; ``Lq`` its length in
words; ``La`` the total length in words of its answer options; ``Ts`` the
length of the text in words.

Units (the paper is ambiguous; these are our choices):

* ``Pr`` is a **percentage** in [0, 100] (the paper calls it "the percentage
  of correct answers"); ``pr_unit="fraction"`` gives [0, 1] instead.
* Times are in **seconds** (``time_ms / 1000``); ``time_unit_ms`` changes the
  unit (the paper only says "arbitrary seconds-based units").
* Word counts are plain counts; nothing is multiplied by 100. The paper's
  Table 3 (complete) says its values were "multiplied per 100"; its Table 4
  (textsize) is consistently about Ts/100 times Table 3, i.e. Table 4 looks
  unscaled. We scale none of the variants: multiply a complete score by 100
  yourself to put it on the scale of the paper's Table 3.

The paper's tables cannot be reproduced without its raw log (unpublished);
the tests check the formulas on small hand-made logs.
"""

from __future__ import annotations

import csv
import math
import os
from collections import defaultdict
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, Sequence

VARIANTS: tuple[str, ...] = ("simple", "complete", "textsize")
BASE_COLUMNS: tuple[str, ...] = ("participant", "text_id", "question_id", "correct", "time_ms")
QUESTION_COLUMNS: tuple[str, ...] = ("n_answers", "question_words", "answers_words")
TEXT_COLUMNS: tuple[str, ...] = ("text_words",)
# Columns each variant needs on every row.
REQUIRED_COLUMNS: dict[str, tuple[str, ...]] = {
    "simple": BASE_COLUMNS,
    "complete": BASE_COLUMNS + QUESTION_COLUMNS,
    "textsize": BASE_COLUMNS + QUESTION_COLUMNS + TEXT_COLUMNS,
}

Variant = Literal["simple", "complete", "textsize"]


@dataclass(frozen=True)
class Answer:
    """One logged answer. ``time_ms`` is the time to reply in milliseconds;
    the question/text sizes are None when the log does not carry them."""

    participant: str
    text_id: str
    question_id: str
    correct: bool
    time_ms: float
    n_answers: int | None = None
    question_words: int | None = None
    answers_words: int | None = None
    text_words: int | None = None
    line: int = 0  # line in the source file (1 = header), for error messages


@dataclass(frozen=True)
class CScore:
    """The C-Score of one text plus the quantities it was computed from."""

    text_id: str
    c_score: float
    variant: str
    pr: float  # share of correct answers, in the chosen unit (percent by default)
    t_mean: float  # mean time to reply, in the chosen time unit (seconds by default)
    n_questions: int
    n_answers: int  # answers logged for this text
    n_participants: int


def _where(source: str, line: int) -> str:
    return f"{source}, line {line}" if line else source


def _parse_int(value: object, column: str, where: str, minimum: int) -> int:
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"{where}: {column}={value!r} is not a number") from None
    if not number.is_integer() or number < minimum:
        raise ValueError(f"{where}: {column}={value!r} must be a whole number >= {minimum}")
    return int(number)


def parse_log(rows: Iterable[Mapping[str, object]], source: str = "log", first_line: int = 2) -> list[Answer]:
    """Validate comprehension-log rows (mappings with the CSV's column names).

    ``correct`` must be 0 or 1 and ``time_ms`` a positive number of
    milliseconds. The optional size columns are parsed when present and
    non-empty. A participant answering the same question of the same text
    twice is an error. Raises ValueError naming the offending line.
    """
    answers: list[Answer] = []
    seen: dict[tuple[str, str, str], int] = {}
    for offset, row in enumerate(rows):
        line = first_line + offset
        where = _where(source, line)
        if not isinstance(row, Mapping):
            raise ValueError(f"{where}: expected a row of named columns, got {row!r}")
        for column in BASE_COLUMNS:
            if column not in row or row[column] is None or str(row[column]).strip() == "":
                raise ValueError(f"{where}: missing value for column {column!r}")
        participant = str(row["participant"]).strip()
        text_id = str(row["text_id"]).strip()
        question_id = str(row["question_id"]).strip()
        correct_raw = str(row["correct"]).strip()
        if correct_raw not in ("0", "1"):
            raise ValueError(f"{where}: correct={row['correct']!r} must be 0 or 1")
        try:
            time_ms = float(str(row["time_ms"]).strip())
        except ValueError:
            raise ValueError(f"{where}: time_ms={row['time_ms']!r} is not a number") from None
        if not math.isfinite(time_ms) or time_ms <= 0:
            raise ValueError(f"{where}: time_ms={row['time_ms']!r} must be a positive number of milliseconds")
        sizes: dict[str, int | None] = {}
        for column, minimum in (("n_answers", 1), ("question_words", 0), ("answers_words", 0), ("text_words", 1)):
            value = row.get(column)
            sizes[column] = (
                None if value is None or str(value).strip() == "" else _parse_int(value, column, where, minimum)
            )
        key = (participant, text_id, question_id)
        if key in seen:
            raise ValueError(
                f"{where}: participant {participant!r} answered question {question_id!r} of text "
                f"{text_id!r} twice (first at line {seen[key]})"
            )
        seen[key] = line
        answers.append(Answer(participant, text_id, question_id, correct_raw == "1", time_ms, line=line, **sizes))
    return answers


def read_log(path: str | os.PathLike) -> list[Answer]:
    """Read a comprehension-test log CSV (header row, one row per answer) and validate it."""
    with open(path, newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None:
            raise ValueError(f"{path}: empty file, expected a header with {', '.join(BASE_COLUMNS)}")
        header = [h.strip() for h in reader.fieldnames]
        missing = [c for c in BASE_COLUMNS if c not in header]
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(missing)}; header is {', '.join(header)}")
        reader.fieldnames = header
        rows = list(reader)
    for i, row in enumerate(rows):
        if None in row:  # more cells than header columns
            raise ValueError(f"{_where(str(path), i + 2)}: more values than header columns")
    return parse_log(rows, source=str(path))


def _consistent(answers: Sequence[Answer], column: str, what: str) -> int:
    """The one value of ``column`` shared by ``answers`` (all about the same question/text)."""
    values = {getattr(a, column) for a in answers}
    if len(values) > 1:
        lines = sorted({a.line for a in answers})
        raise ValueError(f"{what}: conflicting {column} values {sorted(values)} (lines {lines[:6]})")
    return values.pop()


def compute_cscores(
    answers: Sequence[Answer],
    variant: Variant = "simple",
    *,
    pr_unit: Literal["percent", "fraction"] = "percent",
    time_unit_ms: float = 1000.0,
) -> list[CScore]:
    """C-Score per text, in the order texts first appear in ``answers``.

    ``variant`` is ``simple``, ``complete`` or ``textsize`` (see module
    docstring for formulas and units). Higher = better comprehension = easier.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    if pr_unit not in ("percent", "fraction"):
        raise ValueError(f"pr_unit must be 'percent' or 'fraction', got {pr_unit!r}")
    if not (isinstance(time_unit_ms, (int, float)) and math.isfinite(time_unit_ms) and time_unit_ms > 0):
        raise ValueError(f"time_unit_ms must be a positive number, got {time_unit_ms!r}")
    if not answers:
        raise ValueError("the log has no answers")
    pr_scale = 100.0 if pr_unit == "percent" else 1.0
    for column in REQUIRED_COLUMNS[variant]:
        lacking = next((a for a in answers if getattr(a, column) is None), None)
        if lacking is not None:
            raise ValueError(
                f"line {lacking.line} (text {lacking.text_id!r}, question {lacking.question_id!r}): "
                f"no value for column {column!r}, which the {variant} variant needs"
            )

    by_text: dict[str, list[Answer]] = defaultdict(list)
    for a in answers:
        by_text[a.text_id].append(a)

    out: list[CScore] = []
    for text_id, rows in by_text.items():
        pr = pr_scale * sum(a.correct for a in rows) / len(rows)
        t_mean = sum(a.time_ms for a in rows) / len(rows) / time_unit_ms
        by_question: dict[str, list[Answer]] = defaultdict(list)
        for a in rows:
            by_question[a.question_id].append(a)
        n_q = len(by_question)
        if variant == "simple":
            score = pr / t_mean
        else:
            total = 0.0
            for qid, q_rows in by_question.items():
                what = f"text {text_id!r}, question {qid!r}"
                qs = _consistent(q_rows, "n_answers", what) * (
                    _consistent(q_rows, "question_words", what) + _consistent(q_rows, "answers_words", what)
                )
                t_q = sum(a.time_ms for a in q_rows) / len(q_rows) / time_unit_ms
                total += qs / t_q
            score = pr / n_q * total
            if variant == "textsize":
                score *= _consistent(rows, "text_words", f"text {text_id!r}")
        out.append(
            CScore(
                text_id=text_id,
                c_score=float(score),
                variant=variant,
                pr=pr,
                t_mean=t_mean,
                n_questions=n_q,
                n_answers=len(rows),
                n_participants=len({a.participant for a in rows}),
            )
        )
    return out


def cscores_from_log(
    path: str | os.PathLike,
    variant: Variant = "simple",
    *,
    pr_unit: Literal["percent", "fraction"] = "percent",
    time_unit_ms: float = 1000.0,
) -> dict[str, float]:
    """``{text_id: c_score}`` for a log CSV (higher = easier; see :func:`compute_cscores`)."""
    rows = compute_cscores(read_log(path), variant, pr_unit=pr_unit, time_unit_ms=time_unit_ms)
    return {r.text_id: r.c_score for r in rows}
