"""C-Score (Temnikova & Maneva 2013) on small hand-made logs, values worked out by hand."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from arts_metric.cscore import compute_cscores, cscores_from_log, parse_log, read_log

HEADER = "participant,text_id,question_id,correct,time_ms,n_answers,question_words,answers_words,text_words"
# Text T1: 2 participants x 2 questions; text T2: 2 participants x 1 question.
LOG = """\
p1,T1,q1,1,2000,4,5,12,150
p1,T1,q2,0,4000,3,6,9,150
p2,T1,q1,1,3000,4,5,12,150
p2,T1,q2,1,5000,3,6,9,150
p1,T2,q3,1,6000,2,4,6,100
p2,T2,q3,0,2000,2,4,6,100
"""

# By hand, Pr in percent, times in seconds:
# T1: Pr = 3/4 = 75 %, t_mean = (2+4+3+5)/4 = 3.5 s -> simple = 75 / 3.5
#     q1: Qs = 4 * (5 + 12) = 68, t(q1) = 2.5 s -> 27.2;  q2: Qs = 3 * (6 + 9) = 45, t(q2) = 4.5 s -> 10
#     complete = 75 / 2 * (27.2 + 10) = 1395;  textsize = 1395 * 150 = 209250
# T2: Pr = 50 %, t_mean = 4 s -> simple = 12.5; q3: Qs = 2 * (4 + 6) = 20, t = 4 s -> 5
#     complete = 50 / 1 * 5 = 250;  textsize = 250 * 100 = 25000
EXPECTED = {
    "simple": {"T1": 75 / 3.5, "T2": 12.5},
    "complete": {"T1": 1395.0, "T2": 250.0},
    "textsize": {"T1": 209250.0, "T2": 25000.0},
}


def write_log(tmp_path: Path, body: str, header: str = HEADER) -> Path:
    path = tmp_path / "log.csv"
    path.write_text(header + "\n" + body, encoding="utf-8")
    return path


@pytest.mark.parametrize("variant", ["simple", "complete", "textsize"])
def test_variants_match_hand_computation(tmp_path, variant):
    scores = cscores_from_log(write_log(tmp_path, LOG), variant)
    assert list(scores) == ["T1", "T2"]  # order of first appearance
    for text_id, value in EXPECTED[variant].items():
        assert scores[text_id] == pytest.approx(value, rel=1e-12)


def test_details_and_units(tmp_path):
    answers = read_log(write_log(tmp_path, LOG))
    t1 = compute_cscores(answers, "simple")[0]
    assert (t1.pr, t1.t_mean, t1.n_questions, t1.n_answers, t1.n_participants) == (75.0, 3.5, 2, 4, 2)
    # Pr as a fraction divides every variant by 100.
    frac = compute_cscores(answers, "complete", pr_unit="fraction")
    assert frac[0].c_score == pytest.approx(13.95)
    # Ten-second time units: t_mean = 0.35 -> 75 / 0.35.
    tens = compute_cscores(answers, "simple", time_unit_ms=10_000)
    assert tens[0].c_score == pytest.approx(75 / 0.35)


def test_more_correct_or_faster_means_higher_score(tmp_path):
    base = cscores_from_log(write_log(tmp_path, LOG), "complete")["T1"]
    better = LOG.replace("p1,T1,q2,0,4000", "p1,T1,q2,1,4000")
    faster = LOG.replace("p2,T1,q2,1,5000", "p2,T1,q2,1,2500")
    assert cscores_from_log(write_log(tmp_path, better), "complete")["T1"] > base
    assert cscores_from_log(write_log(tmp_path, faster), "complete")["T1"] > base


def test_simple_needs_only_base_columns(tmp_path):
    body = "a,X,1,1,1000\na,X,2,0,3000\n"
    path = write_log(tmp_path, body, header="participant,text_id,question_id,correct,time_ms")
    assert cscores_from_log(path, "simple") == {"X": pytest.approx(50 / 2.0)}
    with pytest.raises(ValueError, match=r"line 2 .*'n_answers'.*complete"):
        cscores_from_log(path, "complete")


@pytest.mark.parametrize(
    "bad_row, message",
    [
        ("p3,T2,q3,2,1000,2,4,6,100", r"line 8: correct='2' must be 0 or 1"),
        ("p3,T2,q3,1,-5,2,4,6,100", r"line 8: time_ms='-5' must be a positive"),
        ("p3,T2,q3,1,soon,2,4,6,100", r"line 8: time_ms='soon' is not a number"),
        ("p3,T2,,1,1000,2,4,6,100", r"line 8: missing value for column 'question_id'"),
        ("p3,T2,q3,1,1000,0,4,6,100", r"line 8: n_answers='0' must be a whole number >= 1"),
        (
            "p2,T2,q3,1,1000,2,4,6,100",
            r"line 8: participant 'p2' answered question 'q3' of text 'T2' twice \(first at line 7\)",
        ),
    ],
)
def test_bad_rows_are_named(tmp_path, bad_row, message):
    with pytest.raises(ValueError, match=message):
        read_log(write_log(tmp_path, LOG + bad_row + "\n"))


def test_conflicting_question_sizes(tmp_path):
    body = LOG.replace("p2,T1,q1,1,3000,4,5,12,150", "p2,T1,q1,1,3000,5,5,12,150")
    answers = read_log(write_log(tmp_path, body))
    assert compute_cscores(answers, "simple")  # sizes are not used by the simple variant
    with pytest.raises(ValueError, match=r"text 'T1', question 'q1': conflicting n_answers values \[4, 5\]"):
        compute_cscores(answers, "complete")


def test_missing_column_and_bad_arguments(tmp_path):
    path = write_log(tmp_path, "p1,T1,1,1000\n", header="participant,text_id,correct,time_ms")
    with pytest.raises(ValueError, match="missing column.*question_id"):
        read_log(path)
    answers = parse_log([{"participant": "p", "text_id": "t", "question_id": "q", "correct": 1, "time_ms": 10}])
    with pytest.raises(ValueError, match="variant must be one of"):
        compute_cscores(answers, "fancy")
    with pytest.raises(ValueError, match="time_unit_ms"):
        compute_cscores(answers, time_unit_ms=0)
    with pytest.raises(ValueError, match="no answers"):
        compute_cscores([], "simple")


def test_cli_writes_text_id_c_score_rows(tmp_path, capsys):
    from arts_metric.cli import main

    log = write_log(tmp_path, LOG)
    out = tmp_path / "scores.csv"
    assert main(["cscore", str(log), "--variant", "textsize", "-o", str(out)]) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["text_id", "c_score"]
    assert {r[0]: float(r[1]) for r in rows[1:]} == pytest.approx(EXPECTED["textsize"])

    assert main(["cscore", str(log)]) == 0  # default variant simple, to stdout
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == "text_id,c_score" and float(lines[2].split(",")[1]) == pytest.approx(12.5)


def test_cli_errors_are_one_line(tmp_path, capsys):
    from arts_metric.cli import main

    bad = write_log(tmp_path, "p1,T1,q1,yes,1000,4,5,12,150\n")
    assert main(["cscore", str(bad), "--variant", "complete"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "correct='yes' must be 0 or 1" in err and str(bad) in err
    assert main(["cscore", str(tmp_path / "nope.csv")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_cli_unwritable_output_is_one_line(tmp_path, capsys):
    from arts_metric.cli import main

    log = write_log(tmp_path, LOG)
    assert main(["cscore", str(log), "-o", str(tmp_path / "no-such-dir" / "out.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot write" in err and "no-such-dir" in err


def test_answers_and_scores_are_immutable_values(tmp_path):
    import dataclasses

    from arts_metric.cscore import Answer

    answers = read_log(write_log(tmp_path, LOG))
    score = compute_cscores(answers)[0]
    assert len(set(answers)) == len(answers) and hash(score) == hash(dataclasses.replace(score))
    with pytest.raises(dataclasses.FrozenInstanceError):
        score.c_score = 0.0
    assert Answer("p", "t", "q", True, 1000.0).line == 0  # built in code: no source line


def test_smallest_accepted_values(tmp_path):
    body = "p1,T1,q1,1,0.5,1,0,0,1\n"  # half a millisecond, one option, empty question and options, one word
    (row,) = read_log(write_log(tmp_path, body))
    assert (row.time_ms, row.n_answers, row.question_words, row.answers_words, row.text_words) == (0.5, 1, 0, 0, 1)
    with pytest.raises(ValueError, match=r"time_ms='0' must be a positive"):
        read_log(write_log(tmp_path, "p1,T1,q1,1,0,1,0,0,1\n"))
    in_ms = compute_cscores(read_log(write_log(tmp_path, LOG)), time_unit_ms=1)
    assert in_ms[0].t_mean == 3500.0


def test_rows_given_in_code_missing_a_value_are_named():
    row = {"participant": "p", "text_id": "t", "question_id": "q", "correct": 1, "time_ms": 10}
    for broken in ({k: v for k, v in row.items() if k != "question_id"}, {**row, "question_id": None}):
        with pytest.raises(ValueError, match=r"line 2: missing value for column 'question_id'"):
            parse_log([broken])


def test_a_row_with_more_values_than_columns_is_named(tmp_path):
    with pytest.raises(ValueError, match=r"log.csv, line 4: more values than header columns"):
        read_log(write_log(tmp_path, LOG.replace("p2,T1,q1,1,3000,4,5,12,150", "p2,T1,q1,1,3000,4,5,12,150,9")))


def test_a_conflict_names_its_first_six_lines(tmp_path):
    body = "".join(f"p{i},T1,q1,1,1000,{2 + i % 2},5,12,150\n" for i in range(8))
    with pytest.raises(ValueError, match=r"\(lines \[2, 3, 4, 5, 6, 7\]\)"):
        compute_cscores(read_log(write_log(tmp_path, body)), "complete")


def test_variant_by_keyword_units_only_by_keyword(tmp_path):
    path = write_log(tmp_path, LOG)
    assert cscores_from_log(path, variant="complete") == cscores_from_log(path, "complete")
    answers = read_log(path)
    assert compute_cscores(answers, variant="complete") == compute_cscores(answers, "complete")
    with pytest.raises(TypeError):
        compute_cscores(answers, "complete", "fraction")
    with pytest.raises(TypeError):
        cscores_from_log(path, "complete", "fraction")
