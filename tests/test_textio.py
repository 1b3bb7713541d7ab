import json

import pandas as pd
import pytest

from arts_metric.text.reading import decode_text, labelled_lines, read_labelled_rows, read_rows


def test_every_format_reads_the_same_rows(tmp_path):
    texts = ["One.", "Two, with a comma.", "Three."]
    (tmp_path / "a.txt").write_text("\n".join(texts) + "\n")
    (tmp_path / "a.jsonl").write_text("\n".join(json.dumps({"text": t}) for t in texts) + "\n\n")
    (tmp_path / "a.json").write_text(json.dumps(texts))
    pd.DataFrame({"text": texts}).to_csv(tmp_path / "a.csv", index=False)
    pd.DataFrame({"text": texts}).to_csv(tmp_path / "a.tsv", index=False, sep="\t")
    pd.DataFrame({"text": texts}).to_parquet(tmp_path / "a.parquet")
    for name in ("a.txt", "a.jsonl", "a.json", "a.csv", "a.tsv", "a.parquet"):
        assert [r["text"] for r in read_rows(tmp_path / name)] == texts, name


def test_labels_name_the_line(tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("text,id\nfine,1\n,2\n")
    rows = read_labelled_rows(path)
    assert rows[1][0].endswith("b.csv line 3") and rows[1][1]["text"] == ""  # empty cell stays a string
    bad = tmp_path / "c.jsonl"
    bad.write_text('{"text": "ok"}\n[1, 2]\n')
    with pytest.raises(ValueError, match="c.jsonl line 2: expected a JSON object"):
        read_labelled_rows(bad)
    with pytest.raises(ValueError, match="no 'body' column"):
        read_labelled_rows(path, "body")
    with pytest.raises(ValueError, match="unsupported input type '.docx'"):
        (tmp_path / "d.docx").write_text("x")
        read_labelled_rows(tmp_path / "d.docx")
    assert [label for label, _ in labelled_lines(["a", "b", "c"], "stdin", "txt")] == [
        "stdin line 1",
        "stdin line 2",
        "stdin line 3",
    ]


def test_txt_trailing_blank_lines_are_ignored_and_a_blank_line_inside_is_named(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("first\nsecond\n\n  \n\n")  # blank and whitespace-only lines at the end
    assert [r["text"] for r in read_rows(path)] == ["first", "second"]
    assert [label for label, _ in read_labelled_rows(path)] == [f"{path} line 1", f"{path} line 2"]
    for content, line in (("first\n\nsecond\n", 2), ("\nfirst\nsecond\n", 1), ("a\nb\n   \nc\n\n", 3)):
        path.write_text(content)
        with pytest.raises(ValueError, match=rf"t.txt line {line}: blank line"):
            read_rows(path)
    with pytest.raises(ValueError, match="stdin line 2: blank line"):
        labelled_lines(["a", "", "b"], "stdin", "txt")
    assert len(labelled_lines(["a", "b", "", ""], "stdin", "txt")) == 2
    # JSON lines carry their own structure: blank lines anywhere are skipped
    (tmp_path / "t.jsonl").write_text('{"text": "a"}\n\n{"text": "b"}\n')
    assert [r["text"] for r in read_rows(tmp_path / "t.jsonl")] == ["a", "b"]


@pytest.mark.parametrize("suffix", [".txt", ".jsonl", ".json", ".csv", ".tsv"])
def test_text_that_is_not_utf8_is_named_by_line(tmp_path, suffix):
    lines = {
        ".txt": [b"fine", b"caf\xe9 latin-1"],
        ".jsonl": [b'{"text": "fine"}', b'{"text": "caf\xe9"}'],
        ".json": [b'["fine",', b' "caf\xe9"]'],
        ".csv": [b"text", b"caf\xe9"],
        ".tsv": [b"text", b"caf\xe9"],
    }
    path = tmp_path / f"x{suffix}"
    path.write_bytes(b"\n".join(lines[suffix]) + b"\n")
    with pytest.raises(ValueError, match=r"x\.\w+ line 2: not UTF-8 text \(byte 0xe9 at column \d+\)"):
        read_rows(path)


def test_decode_text_names_line_and_column_and_drops_a_bom():
    with pytest.raises(ValueError, match=r"^stdin line 3: not UTF-8 text \(byte 0xff at column 4\)"):
        decode_text(b"one\ntwo\nabc\xffdef\n", "stdin")
    assert decode_text("\ufeffcaf\u00e9\n".encode("utf-8"), "f") == "caf\u00e9\n"


def test_read_texts_names_the_row_without_text_and_refuses_a_file_without_texts(tmp_path):
    from arts_metric.text.reading import read_texts

    good = tmp_path / "good.jsonl"
    good.write_text('{"text": "A cat sat."}\n{"text": "It slept."}\n', encoding="utf-8")
    assert read_texts(good) == ["A cat sat.", "It slept."]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "A cat sat."}\n{"text": "  "}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.jsonl.*2.*empty, missing or not a string"):
        read_texts(bad)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(ValueError, match="has no texts"):
        read_texts(empty)


def test_a_row_without_the_text_field_lists_the_fields_found(tmp_path):
    from arts_metric.text.reading import read_texts

    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps({"text": "Fine."}) + "\n" + json.dumps({"body": "x", "id": 2}) + "\n")
    with pytest.raises(ValueError, match=r"d\.jsonl line 2: no 'text' field \(fields found: 'body', 'id'\)$"):
        read_texts(path)
