"""``arts score INPUT``: score texts from a file or stdin, one output row per text.

Its scoring flags are the settings of :class:`arts_metric.scoring.config.ScoringConfig`
(``--pool`` is ``pool``, ``--long-texts`` is ``long_texts``, ...), with their
defaults and help taken from there; ``--budget``, ``--target-width``,
``--level``, ``--opponents`` and ``--seed`` go into ``placement_options``.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import re
import sys
from pathlib import Path

from arts_metric.commands import CLIError
from arts_metric.commands.score_engine import add_engine_flags, judge_settings, run_ray
from arts_metric.commands.settings import add_setting_flags, config_from_args
from arts_metric.text.reading import decode_text, label_line, labelled_lines, missing_field, read_labelled_rows

#: Texts scored per call: small, so that the progress bar moves often (scores do not depend on it).
BATCH = 8
#: Flags that become placement_options.
PLACEMENT_FLAGS = ("budget", "target_width", "level", "opponents", "seed")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "score",
        help="score texts (higher ARTS = harder)",
        description="Score texts with ARTS and readability formulas. INPUT is a .txt file (one text per "
        "line, no blank line between texts), a .jsonl or .csv file with a `text` field, or - for stdin (text "
        "lines, or JSON lines when every line starts with '{'). Writes one JSON object (or CSV row) per text: "
        "`index` counts the texts from 0, `line` is where the text is in INPUT, from 1.",
    )
    p.add_argument("input", help="a .txt, .jsonl or .csv file, or - for stdin")
    p.add_argument(
        "--out",
        "-o",
        help="output file (.jsonl, .json or .csv; other suffixes are refused; default: JSON lines on stdout); "
        "with --engine ray: one .jsonl or .parquet file, or DIR/ for one part file per shard",
    )
    p.add_argument("--field", default="text", help="name of the text field in .jsonl/.csv input (default: text)")
    add_setting_flags(p)
    p.add_argument(
        "--budget", type=int, default=None, help="judge calls per text for adaptive/mle/elo (default ceil(2 log2 N))"
    )
    p.add_argument(
        "--target-width",
        type=float,
        default=None,
        help="adaptive: stop when the interval is this narrow (default 0.1)",
    )
    p.add_argument("--level", type=float, default=None, help="interval level (default 0.95)")
    p.add_argument("--opponents", choices=("random", "spread"), default=None, help="mle/elo: how opponents are drawn")
    p.add_argument("--seed", type=int, default=None, help="placement seed")
    p.add_argument("--format", choices=("jsonl", "csv", "table"), default=None, help="stdout format (default jsonl)")
    p.add_argument(
        "--sentences",
        action="store_true",
        help="also write each text's sentences with their arts, arts_elo and words (the text's arts_elo is "
        "the mean of its sentences' arts_elo weighted by their words): a `sentences` list in each JSON "
        "record; with --out NAME.csv a second file NAME.sentences.csv beside it, one row per sentence "
        "(index, line, sentence, text, arts, arts_elo, words); with --format table a row per sentence below its "
        "text's, * marking the hardest (texts of one sentence get none). Needs --long-texts mean (the "
        "default); not with CSV on stdout or --engine ray",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    add_engine_flags(p)
    p.set_defaults(func=run)


def _read_rows(source: str, field: str) -> list[tuple[str, dict]]:
    """``(row label, row dict)`` pairs; the label names the row in error messages."""
    try:
        if source == "-":
            raw = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
            lines = decode_text(raw, "stdin").splitlines()
            as_json = bool(lines) and all(ln.lstrip().startswith("{") for ln in lines if ln.strip())
            return labelled_lines(lines, "stdin", "jsonl" if as_json else "txt", field)
        return read_labelled_rows(source, field)
    except ValueError as exc:
        raise CLIError(str(exc)) from None


def _collect(args: argparse.Namespace) -> tuple[list[str], list[str], list[dict]]:
    labels, texts, rows = [], [], []
    for label, row in _read_rows(args.input, args.field):
        if args.field not in row:
            raise CLIError(missing_field(label, args.field, row, "choose the text's field with --field"))
        text = row[args.field]
        if not isinstance(text, str) or not text.strip():
            raise CLIError(f"{label}: the text is empty, missing or not a string ({text!r:.40})")
        labels.append(label)
        texts.append(text)
        rows.append(row)
    if not texts:
        raise CLIError(f"{args.input}: no texts to score")
    return labels, texts, rows


#: ``--out`` suffixes and the format written.
OUT_FORMATS = {".jsonl": "jsonl", ".json": "json", ".csv": "csv"}


def check_out(path: str) -> None:
    """CLIError unless ``--out`` can be written: an existing folder, a missing parent folder, a file or
    device that refuses writes (``/dev/full``). Checked before any scoring; changes no file's content."""
    out = Path(path)
    if out.suffix and out.suffix.lower() not in OUT_FORMATS:
        raise CLIError(
            f"--out {path}: unknown output type {out.suffix!r}; give a file name ending in "
            f"{', '.join(OUT_FORMATS)} (a name without a suffix gets JSON lines)"
        )
    if out.is_dir():
        raise CLIError(f"--out {path} is a folder; give a file name (.jsonl, .json or .csv)")
    parent = out.parent
    if not parent.is_dir():
        raise CLIError(f"--out {path}: the folder {parent} does not exist")
    existed = out.exists()
    try:
        fd = os.open(out, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, b"")  # a device that takes no data (/dev/full) refuses even this
        finally:
            os.close(fd)
    except OSError as exc:
        raise CLIError(f"--out {path} cannot be written: {exc.strerror or exc}") from None
    if not existed:
        out.unlink(missing_ok=True)  # created only to check; written when the scores are ready


def sentences_path(out: str) -> Path:
    """The file beside a CSV ``--out`` that holds its texts' sentences: ``scores.csv`` ->
    ``scores.sentences.csv``."""
    return Path(out).with_suffix(".sentences.csv")


def check_sentences(args: argparse.Namespace, long_texts: str) -> None:
    """CLIError unless ``--sentences`` can be written with these settings: texts scored by their
    sentences (``--long-texts mean``), the local engine, and CSV only into a file (``--out x.csv``)."""
    if not args.sentences:
        return
    if long_texts != "mean":
        raise CLIError(
            f"--sentences needs --long-texts mean (the default), which scores every text by its sentences; "
            f"--long-texts {long_texts} does not"
        )
    if args.engine == "ray":
        raise CLIError("--sentences is not supported with --engine ray; score with --engine local (the default)")
    if not args.out and args.format == "csv":
        raise CLIError(
            "--sentences with CSV on stdout would mix sentence rows into the text rows; give --out NAME.csv "
            "(the sentences go to NAME.sentences.csv) or use JSON lines"
        )


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from arts_metric.data import ARTSDataNotFoundError
    from arts_metric.llm.protocol import EndpointError
    from arts_metric.llm.report import request_summary
    from arts_metric.scoring.api import score_texts
    from arts_metric.scoring.scorer import checked_placer, resolve_placement

    config = judge_settings(args, config_from_args(args, PLACEMENT_FLAGS))
    check_sentences(args, config.long_texts)
    if args.engine == "ray":
        return run_ray(args, config)
    formulas = config.formulas
    if args.out:
        check_out(args.out)
        if args.sentences and OUT_FORMATS.get(Path(args.out).suffix.lower()) == "csv":
            check_out(str(sentences_path(args.out)))
    labels, texts, rows = _collect(args)
    try:
        judge = config.make_judge()
        checked_placer(*resolve_placement(judge, config))  # a setting error, not an error of the rows
        built = {"judge": judge, "pool": config.make_pool(judge)}
    except (ValueError, FileNotFoundError) as exc:
        raise CLIError(str(exc)) from None
    out_rows: list[dict] = []
    signature = None
    batch_start = 0

    def warning_words(message: str) -> str:
        """The scoring's ``predictions[j]`` (of the batch at ``batch_start``) as INPUT's lines."""
        message = re.sub(
            r"\bpredictions\[(\d+)\]",
            lambda m: f"line {label_line(labels[batch_start + int(m.group(1))])}",
            message,
        )
        return re.sub(r"\b(\d+) of (\d+) predictions\b", r"\1 of \2 texts", message)

    args.warning_words = warning_words
    bar = tqdm(total=len(texts), unit="text", desc="arts score", disable=args.no_progress, file=sys.stderr)
    try:
        for start in range(0, len(texts), BATCH):
            batch, batch_start = texts[start : start + BATCH], start
            try:
                res = score_texts(batch, config=config, return_sentences=args.sentences, **built)
            except (ARTSDataNotFoundError, EndpointError) as exc:
                raise CLIError(str(exc)) from None
            except ValueError as exc:
                raise CLIError(f"rows {labels[start]} .. {labels[start + len(batch) - 1]}: {exc}") from None
            signature = res["arts_signature"]
            for j in range(len(batch)):
                row = {"index": start + j, "line": label_line(labels[start + j])}
                if "id" in rows[start + j]:
                    rid = rows[start + j]["id"]
                    row["id"] = rid.item() if hasattr(rid, "item") else rid  # numpy scalars from CSV
                row["text"] = batch[j]
                row["arts"] = res["arts"][j]
                row["arts_elo"] = res["arts_elo"][j]
                if "arts_interval" in res:
                    row["arts_low"], row["arts_high"] = res["arts_interval"][j]
                for f in formulas:
                    row[f] = res[f][j]
                row["units"] = res["units"][j]
                if args.sentences:
                    row["sentences"] = res["sentences"][j]
                out_rows.append(row)
            bar.update(len(batch))
            bar.refresh()  # each batch shows, also when later batches take less than the bar's refresh interval
    finally:
        bar.close()
        judge.close()
    try:
        _write(out_rows, args)
    except OSError as exc:  # e.g. the disk filled up while scoring
        raise CLIError(f"cannot write {args.out or 'stdout'}: {exc.strerror or exc}") from None
    if signature:  # on stderr, so that the rows on stdout stay machine-readable
        print(f"signature: {signature}", file=sys.stderr)
    requests = request_summary(judge.stats.as_dict())
    if requests:  # an LLM judge: what was paid for
        print(f"requests: {requests}", file=sys.stderr)
    return 0


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.3f}"
    return str(v)


def _short(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: The columns of the ``--sentences`` CSV file, one row per sentence.
SENTENCE_COLUMNS = ("index", "line", "sentence", "text", "arts", "arts_elo", "words")


def _sentence_rows(rows: list[dict]) -> list[dict]:
    """One row per sentence: the text's ``index`` and ``line`` (as in the main output), the
    sentence's 1-based place in its text, its text, ``arts``, ``arts_elo`` and ``words``."""
    return [
        {"index": r["index"], "line": r["line"], "sentence": k, **{c: s[c] for c in SENTENCE_COLUMNS[3:]}}
        for r in rows
        for k, s in enumerate(r["sentences"], start=1)
    ]


def _hardest(sentences: list[dict]) -> int | None:
    """The position of the hardest sentence (highest ``arts_elo``) of a text of two or more, else None."""
    if len(sentences) < 2:
        return None
    return max(range(len(sentences)), key=lambda k: sentences[k]["arts_elo"])


def _table(rows: list[dict]) -> str:
    """The rows as a fixed-width table, ``line`` (where each text is in INPUT, from 1, as in the
    JSON rows and the Space); with sentences, a row per sentence below its text's (texts of two or
    more sentences), ``*`` marking the hardest."""
    cols = [c for c in rows[0] if c not in ("index", "line", "id", "text", "units", "sentences")]
    width = max(4, len(str(rows[-1]["line"])))
    buf = io.StringIO()
    buf.write(f"{'line':>{width}}  " + "  ".join(f"{c:>10}" for c in cols) + "  text\n")
    for r in rows:
        line = f"{r['line']:>{width}}  "
        buf.write(line + "  ".join(f"{_fmt(r[c]):>10}" for c in cols) + f"  {_short(r['text'])}\n")
        hardest = _hardest(r.get("sentences", []))
        if hardest is None:
            continue
        for k, s in enumerate(r["sentences"]):
            mark = "*" if k == hardest else " "
            values = "  ".join(f"{_fmt(s[c]) if c in ('arts', 'arts_elo') else '':>10}" for c in cols)
            buf.write(f"{'':>{width}}  {values}    {mark} {_short(s['text'], 64)} ({s['words']} words)\n")
    return buf.getvalue()


def _write_csv(fh, rows: list[dict], fields: list[str] | tuple[str, ...]) -> None:
    writer = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")  # sentences go to their own file
    writer.writeheader()
    writer.writerows(rows)


def _write(rows: list[dict], args: argparse.Namespace) -> None:
    fmt = args.format
    if args.out:
        suffix = Path(args.out).suffix.lower()
        fmt = OUT_FORMATS.get(suffix, "jsonl")
        fh = open(args.out, "w", newline="", encoding="utf-8")
    else:
        fh = sys.stdout
        fmt = fmt or "jsonl"
    try:
        if fmt == "csv":
            _write_csv(fh, rows, [k for k in rows[0] if k != "sentences"])
        elif fmt == "json":
            json.dump(rows, fh, ensure_ascii=False, indent=1)
            fh.write("\n")
        elif fmt == "table":
            fh.write(_table(rows))
        else:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    finally:
        if fh is not sys.stdout:
            fh.close()
    if fmt == "csv" and args.sentences:  # check_sentences: CSV with sentences is a file
        side = sentences_path(args.out)
        try:
            with open(side, "w", newline="", encoding="utf-8") as fh:
                _write_csv(fh, _sentence_rows(rows), SENTENCE_COLUMNS)
        except OSError as exc:
            raise CLIError(f"cannot write {side}: {exc.strerror or exc}") from None
