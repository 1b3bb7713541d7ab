"""The `arts score` command: inputs, outputs, errors."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_inprocess import arts

ARTS = str(Path(sys.executable).parent / "arts")
TEXTS = [
    "The dog ran to the park.",
    "The committee postponed its decision until the auditors had reviewed the accounts.",
]


# ``arts ARGS`` in this process (the judge loads once); the tests that need the console script
# in a fresh process call run_command.
run = arts


def run_command(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([ARTS, *args], input=stdin, capture_output=True, text=True, timeout=300)


def test_txt_to_jsonl(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXTS) + "\n")
    out = tmp_path / "out.jsonl"
    proc = run("score", str(src), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [r["text"] for r in rows] == TEXTS
    assert rows[0]["arts"] < rows[1]["arts"]
    assert {"arts", "arts_elo", "fkgl", "fre", "dale_chall"} <= set(rows[0])
    assert "arts score" in proc.stderr  # the progress bar goes to stderr


def test_jsonl_and_csv_inputs_csv_output(tmp_path):
    jl = tmp_path / "in.jsonl"
    jl.write_text("\n".join(json.dumps({"id": f"t{i}", "text": t}) for i, t in enumerate(TEXTS)))
    out = tmp_path / "out.csv"
    proc = run("score", str(jl), "--out", str(out), "--formulas", "smog,ari", "--pool", "arts300")
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(out.open()))
    assert [r["id"] for r in rows] == ["t0", "t1"] and "smog" in rows[0] and "fkgl" not in rows[0]
    cs = tmp_path / "in.csv"
    with cs.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=["text", "system"])
        w.writeheader()
        w.writerows({"text": t, "system": "a"} for t in TEXTS)
    proc = run("score", str(cs), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.strip().splitlines()) == 2


@pytest.mark.slow
def test_stdin():
    """The console script reading a real pipe."""
    proc = run_command("score", "-", "--no-progress", stdin="\n".join(TEXTS))
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(ln) for ln in proc.stdout.splitlines()]
    assert len(rows) == 2 and rows[0]["arts"] < rows[1]["arts"]


def test_bad_row_is_one_line_error(tmp_path):
    jl = tmp_path / "bad.jsonl"
    jl.write_text(json.dumps({"text": TEXTS[0]}) + "\n" + json.dumps({"text": "   "}) + "\n")
    proc = run("score", str(jl))
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and "line 2" in errors[0]
    jl.write_text(json.dumps({"text": TEXTS[0]}) + "\n{not json\n")
    proc = run("score", str(jl))
    assert proc.returncode != 0 and "line 2" in proc.stderr and "Traceback" not in proc.stderr
    proc = run("score", str(tmp_path / "missing.txt"))
    assert proc.returncode != 0 and "not found" in proc.stderr
    proc = run("score", "-", "--formulas", "fkgl,bogus", stdin=TEXTS[0])
    assert proc.returncode != 0 and "bogus" in proc.stderr and "Traceback" not in proc.stderr


def test_judge_and_data_errors_are_one_line(tmp_path):
    import os

    # An endpoint nobody listens on (port 9, loopback): the run stops with one line.
    proc = subprocess.run(
        [
            ARTS,
            "score",
            "-",
            "--pool",
            "arts94",
            "--no-progress",
            "--judge",
            "openai:m@http://127.0.0.1:9/v1?max_retries=1",
        ],
        input=TEXTS[0],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ARTS_CACHE_DIR": str(tmp_path)},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "127.0.0.1:9" in proc.stderr
    # An LLM judge must read the pool's texts: a missing data folder is named before any call.
    proc = subprocess.run(
        [ARTS, "score", "-", "--no-progress", "--judge", "openai:m@http://127.0.0.1:9/v1"],
        input=TEXTS[0],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "ARTS_DATA_DIR": str(tmp_path / "missing"), "ARTS_CACHE_DIR": str(tmp_path)},
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and "ARTS_DATA_DIR" in proc.stderr


def test_flags_are_the_scoring_settings():
    """`arts score` flags map onto ScoringConfig fields and placement_options; a flag not
    given keeps the config's default."""
    from arts_metric.cli import build_parser
    from arts_metric.commands.score import PLACEMENT_FLAGS
    from arts_metric.commands.settings import SETTING_FLAGS, config_from_args
    from arts_metric.scoring.config import ScoringConfig

    parser = build_parser()
    assert config_from_args(parser.parse_args(["score", "in.txt"]), PLACEMENT_FLAGS) == ScoringConfig()
    args = parser.parse_args(
        [
            "score",
            "-",
            "--pool",
            "arts94",
            "--formulas",
            "smog,ARI",
            "--long-texts",
            "whole",
            "--chunk-chars",
            "90",
            "--split-above",
            "500",
            "--placement",
            "mle",
            "--budget",
            "8",
            "--seed",
            "2",
            "--data-dir",
            "/d",
            "--judge",
            "learned",
        ]
    )
    assert config_from_args(args, PLACEMENT_FLAGS) == ScoringConfig(
        pool="arts94",
        formulas=("smog", "ari"),
        long_texts="whole",
        chunk_chars=90,
        split_above=500,
        placement="mle",
        placement_options={"budget": 8, "seed": 2},
        data_dir="/d",
    )
    assert set(SETTING_FLAGS) == set(ScoringConfig.names()) - {"judge_options", "placement_options"}
    help_text = parser._subparsers._group_actions[0].choices["score"].format_help()
    assert f"(default: {ScoringConfig.default('pool')})" in help_text and "{mean,team,chunks,whole}" in help_text


def test_formulas_none_and_bad_settings(tmp_path):
    proc = run("score", "-", "--no-progress", "--formulas", "none", stdin=TEXTS[0])
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert "fkgl" not in row and 0.0 <= row["arts"] <= 1.0
    proc = run("score", "-", "--chunk-chars", "0", stdin=TEXTS[0])
    assert (
        proc.returncode == 2
        and "chunk_chars must be a positive integer" in proc.stderr
        and "Traceback" not in proc.stderr
    )


def _one_error_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    return lines[0]


def test_an_unwritable_out_is_one_line_before_any_scoring(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXTS) + "\n")
    # An endpoint nobody listens on: reaching it would be a different error, so the --out
    # check must come first.
    judge = ["--judge", "openai:m@http://127.0.0.1:9/v1?max_retries=0", "--pool", "arts94"]
    cases = {
        str(tmp_path / "missing" / "out.jsonl"): "does not exist",
        str(tmp_path): "is a folder",
        "/dev/full": "No space left on device",
    }
    for out, why in cases.items():
        line = _one_error_line(run("score", str(src), "--out", out, "--no-progress", *judge))
        assert line.startswith(f"arts score: error: --out {out}") and why in line, line
    assert list(tmp_path.iterdir()) == [src]  # the check left nothing behind
    existing = tmp_path / "keep.jsonl"
    existing.write_text("old\n")
    proc = run("score", str(src), "--out", str(existing), "--no-progress", *judge)
    assert proc.returncode == 2 and "127.0.0.1:9" in proc.stderr and existing.read_text() == "old\n"


def test_non_utf8_stdin_is_the_same_one_line_error_as_a_file(tmp_path):
    data = "The dog ran.\n".encode() + b"caf\xe9 au lait\n"
    path = tmp_path / "latin1.txt"
    path.write_bytes(data)
    from_file = _one_error_line(
        subprocess.run([ARTS, "score", str(path)], capture_output=True, text=True, timeout=300)
    )
    stdin = subprocess.run([ARTS, "score", "-"], input=data, capture_output=True, timeout=300)
    from_stdin = _one_error_line(
        subprocess.CompletedProcess(stdin.args, stdin.returncode, stdin.stdout.decode(), stdin.stderr.decode())
    )
    assert from_file.replace(str(path), "stdin") == from_stdin
    assert "stdin line 2: not UTF-8 text (byte 0xe9" in from_stdin


def test_txt_blank_lines_at_the_end_are_ignored_inside_they_are_named(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXTS) + "\n\n\n")
    proc = run("score", str(src), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(ln)["text"] for ln in proc.stdout.splitlines()] == TEXTS
    proc = run("score", "-", "--no-progress", stdin="\n".join(TEXTS) + "\n\n")
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 2, proc.stderr
    src.write_text(TEXTS[0] + "\n\n" + TEXTS[1] + "\n")
    line = _one_error_line(run("score", str(src), "--no-progress"))
    assert f"{src} line 2: blank line" in line


def test_every_output_row_says_where_its_text_is_in_the_input_from_one(tmp_path):
    """`index` counts texts from 0 (as `predictions[i]`); `line` is where a person finds the
    text in INPUT, from 1: its line in a .txt, .jsonl (blank lines keep their numbers) or .csv
    file (the header is line 1), the number the table shows."""
    txt = tmp_path / "in.txt"
    txt.write_text("\n".join(TEXTS) + "\n")
    rows = [json.loads(ln) for ln in run("score", str(txt), "--no-progress", "--formulas", "none").stdout.splitlines()]
    assert [(r["index"], r["line"]) for r in rows] == [(0, 1), (1, 2)]
    assert list(rows[0])[:3] == ["index", "line", "text"]
    jl = tmp_path / "in.jsonl"
    jl.write_text(json.dumps({"text": TEXTS[0]}) + "\n\n" + json.dumps({"text": TEXTS[1]}) + "\n")
    out = tmp_path / "out.csv"
    proc = run("score", str(jl), "--out", str(out), "--no-progress", "--formulas", "none")
    assert proc.returncode == 0, proc.stderr
    assert [(r["index"], r["line"]) for r in csv.DictReader(out.open(encoding="utf-8"))] == [("0", "1"), ("1", "3")]
    table = tmp_path / "in.csv"
    with table.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([["text"], *([t] for t in TEXTS)])
    proc = run("score", str(table), "--no-progress", "--formulas", "none", "--format", "table")
    assert proc.returncode == 0, proc.stderr
    assert [ln.split()[0] for ln in proc.stdout.splitlines()[1:]] == ["2", "3"]  # the CSV's own lines


def test_build_out_on_a_file_and_too_many_matches_per_text_are_one_line(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("".join(f"Text number {i} is here.\n" for i in range(5)))
    a_file = tmp_path / "taken"
    a_file.write_text("not a folder")
    line = _one_error_line(run("build", str(src), "--rater", "learned", "--out", str(a_file), "--no-progress"))
    assert f"the build folder {a_file} is a file" in line and a_file.read_text() == "not a folder"
    line = _one_error_line(
        run(
            "build",
            str(src),
            "--rater",
            "learned",
            "--out",
            str(tmp_path / "new"),
            "--matches-per-text",
            "5",
            "--no-progress",
        )
    )
    assert "5 matches per text is more than 5 texts allow" in line and "the maximum is 4 for 5 texts" in line
    assert not (tmp_path / "new").exists()  # refused before anything was created


@pytest.mark.parametrize(
    "flags, why",
    [
        (["--budget", "-3"], "unknown placement option(s) 'budget' for method 'exhaustive'"),
        (["--budget", "-3", "--placement", "adaptive"], "budget must be a positive integer"),
        (["--level", "2", "--placement", "mle"], "level must be in (0, 1)"),
    ],
)
def test_a_bad_placement_setting_is_a_setting_error_not_a_row_error(tmp_path, flags, why):
    src = tmp_path / "ok.txt"
    src.write_text("\n".join(TEXTS) + "\n")
    line = _one_error_line(run("score", str(src), "--no-progress", *flags))
    assert line.startswith("arts score: error: ") and why in line and "rows" not in line and "line 1" not in line


def test_table_numbers_lines_from_one_and_progress_moves_per_small_batch(tmp_path):
    texts = [
        f"Line {i} tells that the {('old', 'new', 'red')[i % 3]} ship sailed on day {i % 28 + 1}." for i in range(40)
    ]
    src = tmp_path / "many.txt"
    src.write_text("\n".join(texts) + "\n", encoding="utf-8")
    table = run("score", str(src), "--format", "table", "--formulas", "fkgl")
    assert table.returncode == 0, table.stderr
    head, *rows = table.stdout.splitlines()
    assert head.split()[:3] == ["line", "arts", "arts_elo"]
    assert [int(r.split()[0]) for r in rows] == list(range(1, 41))  # 1-based, as the Space
    assert all(r.endswith(t) for r, t in zip(rows, texts))
    jsonl = run("score", str(src), "--no-progress", "--formulas", "fkgl")
    arts = [json.loads(line)["arts"] for line in jsonl.stdout.splitlines()]
    assert [r.split()[1] for r in rows] == [f"{a:.3f}" for a in arts]
    # the bar on stderr counts texts as they are scored, not only at the end
    counts = {int(c) for c in re.findall(r"\b(\d+)/40\b", table.stderr)}
    assert len(counts - {0, 40}) >= 2, table.stderr[-2000:]


def test_an_unknown_out_type_is_refused_before_any_scoring(tmp_path):
    """`--out x.xlsx` used to exit 0 with JSON lines written into x.xlsx."""
    src = tmp_path / "in.txt"
    src.write_text("\n".join(TEXTS) + "\n")
    # a judge nobody listens on: reaching the scoring would be a different error
    judge = ("--judge", "openai:m@http://127.0.0.1:9/v1?max_retries=0", "--pool", "arts94")
    for name in ("x.xlsx", "x.txt", "x.JSONL.gz"):
        out = tmp_path / name
        line = _one_error_line(run("score", str(src), "--out", str(out), "--no-progress", *judge))
        suffix = out.suffix
        assert line.startswith(f"arts score: error: --out {out}: unknown output type {suffix!r}"), line
        assert ".jsonl, .json, .csv" in line
        assert not out.exists()


def test_a_jsonl_row_without_the_field_lists_the_fields_found(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"id": 1, "sentence": TEXTS[0]}) + "\n")
    line = _one_error_line(run("score", str(src), "--no-progress"))
    assert line == (
        f"arts score: error: {src} line 1: no 'text' field (fields found: 'id', 'sentence'; "
        "choose the text's field with --field)"
    ), line


PARAGRAPH = (
    "The cat sat on the mat. Notwithstanding the foregoing, the lessee shall indemnify the lessor against all "
    "liabilities arising hereunder. Then it went home."
)


def _weighted_elo(sentences: list[dict]) -> float:
    return sum(s["words"] * s["arts_elo"] for s in sentences) / sum(s["words"] for s in sentences)


def test_sentences_in_json_lines_make_up_the_texts_score():
    proc = run("score", "-", "--sentences", "--no-progress", "--formulas", "none", stdin=f"{PARAGRAPH}\n{TEXTS[0]}")
    assert proc.returncode == 0, proc.stderr
    paragraph, short = [json.loads(line) for line in proc.stdout.splitlines()]
    sentences = paragraph["sentences"]
    assert [s["text"] for s in sentences] == [
        "The cat sat on the mat.",
        "Notwithstanding the foregoing, the lessee shall indemnify the lessor against all liabilities arising "
        "hereunder.",
        "Then it went home.",
    ]
    assert [s["words"] for s in sentences] == [6, 14, 4]
    assert all(set(s) == {"text", "arts", "arts_elo", "words"} and 0 <= s["arts"] <= 1 for s in sentences)
    # the text's rating is the mean of its sentences' ratings weighted by their words
    assert paragraph["arts_elo"] == pytest.approx(_weighted_elo(sentences), rel=1e-9)
    assert max(sentences, key=lambda s: s["arts"])["text"].startswith("Notwithstanding")
    assert min(s["arts"] for s in sentences) < paragraph["arts"] < max(s["arts"] for s in sentences)
    # a text of one sentence is its one sentence
    assert [s["text"] for s in short["sentences"]] == [TEXTS[0]]
    assert short["sentences"][0]["arts_elo"] == pytest.approx(short["arts_elo"], rel=1e-9)
    # without the flag, no sentences
    plain = run("score", "-", "--no-progress", "--formulas", "none", stdin=TEXTS[0])
    assert plain.returncode == 0 and "sentences" not in json.loads(plain.stdout)


def test_sentences_with_a_csv_out_go_to_a_second_csv_beside_it(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(json.dumps({"id": f"t{i}", "text": t}) for i, t in enumerate([TEXTS[0], PARAGRAPH])))
    out = tmp_path / "scores.csv"
    proc = run("score", str(src), "--out", str(out), "--sentences", "--no-progress", "--formulas", "fkgl")
    assert proc.returncode == 0, proc.stderr
    texts = list(csv.DictReader(out.open(encoding="utf-8")))
    assert [r["id"] for r in texts] == ["t0", "t1"] and "sentences" not in texts[0]  # one row per text
    side = tmp_path / "scores.sentences.csv"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "scores.csv", "scores.sentences.csv"]
    with side.open(encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        assert reader.fieldnames == ["index", "line", "sentence", "text", "arts", "arts_elo", "words"]
        sentences = list(reader)
    assert [(r["index"], r["line"], r["sentence"]) for r in sentences] == [
        ("0", "1", "1"),
        ("1", "2", "1"),
        ("1", "2", "2"),
        ("1", "2", "3"),
    ]
    assert sentences[0]["text"] == TEXTS[0] and sentences[2]["text"].startswith("Notwithstanding")
    for row in texts:  # the side file's index is the main file's
        mine = [
            {"words": int(s["words"]), "arts_elo": float(s["arts_elo"])}
            for s in sentences
            if s["index"] == row["index"]
        ]
        assert float(row["arts_elo"]) == pytest.approx(_weighted_elo(mine), rel=1e-9)


def test_sentences_in_a_table_sit_below_their_text_the_hardest_marked():
    proc = run(
        "score", "-", "--sentences", "--format", "table", "--formulas", "fkgl", stdin=f"{TEXTS[0]}\n{PARAGRAPH}"
    )
    assert proc.returncode == 0, proc.stderr
    head, *rows = proc.stdout.splitlines()
    assert head.split()[:4] == ["line", "arts", "arts_elo", "fkgl"]
    # line 1 has one sentence: no sentence rows; line 2 has three, indented below it
    assert rows[0].split()[0] == "1" and rows[1].split()[0] == "2" and len(rows) == 5
    text_at = head.index("text")
    below = rows[2:]
    assert all(r[:4].strip() == "" for r in below)  # no line number
    assert all(r[text_at : text_at + 2] == "  " for r in below)  # indented under the text column
    marked = [r for r in below if r[text_at + 2] == "*"]
    assert len(marked) == 1 and "Notwithstanding" in marked[0] and "(14 words)" in marked[0]
    arts = [float(r.split()[0]) for r in below]
    assert float(marked[0].split()[0]) == max(arts)


@pytest.mark.parametrize(
    "flags, why",
    [
        (["--long-texts", "team"], "--sentences needs --long-texts mean (the default)"),
        (["--long-texts", "whole"], "--long-texts whole does not"),
        (["--format", "csv"], "give --out NAME.csv (the sentences go to NAME.sentences.csv) or use JSON lines"),
        (["--engine", "ray", "--out", "{tmp}/shards"], "--sentences is not supported with --engine ray"),
    ],
)
def test_sentences_are_refused_where_they_cannot_be_written(tmp_path, flags, why):
    src = tmp_path / "in.txt"
    src.write_text(PARAGRAPH + "\n")
    flags = [f.format(tmp=tmp_path) for f in flags]
    line = _one_error_line(run("score", str(src), "--sentences", "--no-progress", *flags))
    assert line.startswith("arts score: error: --sentences") and why in line, line
    assert list(tmp_path.iterdir()) == [src]


@pytest.mark.parametrize(
    "out, flags, why",
    [
        (
            "scores.csv",
            [],
            "--engine ray writes one .jsonl or .parquet file, or one part file per shard into a folder (--out DIR/)",
        ),
        (
            "scores.jsonl",
            ["--out-format", "parquet"],
            "--out-format parquet is for a folder of part files (--out DIR/)",
        ),
        ("missing/scores.parquet", [], "the folder {tmp}/missing does not exist"),
    ],
)
def test_ray_out_that_is_neither_one_file_nor_a_folder_is_one_line(tmp_path, out, flags, why):
    """Refused before Ray starts: nothing is scored and nothing is written."""
    src = tmp_path / "in.txt"
    src.write_text(TEXTS[0] + "\n")
    line = _one_error_line(run("score", str(src), "--engine", "ray", "--out", f"{tmp_path}/{out}", *flags))
    assert line.startswith(f"arts score: error: --out {tmp_path}/{out}") and why.format(tmp=tmp_path) in line, line
    assert list(tmp_path.iterdir()) == [src]


def test_warnings_are_one_line_each_in_the_command_lines_words(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text(TEXTS[0] + "\n" + "هذا نص عربي بسيط للاختبار." + "\n")
    proc = run_command("score", str(src), "--no-progress")  # what a fresh process prints, nothing more
    assert proc.returncode == 0, proc.stderr
    warned = [ln for ln in proc.stderr.splitlines() if "warning" in ln.lower()]
    assert warned == [
        "arts score: warning: 1 of 2 texts are not written in Latin script (line 2: Arabic) but --language en "
        "(English) scores them against an English pool with an English judge, and the readability formulas, "
        "which read Latin-script words, are None on those without one; set --language to the texts' language "
        "(for Arabic script: --language ar)"
    ], proc.stderr
    assert "UserWarning" not in proc.stderr and "sys.exit" not in proc.stderr
