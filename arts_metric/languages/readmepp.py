"""README++ sentences of the development sets (``readmepp/<code>_<split>.jsonl``), read at
run time for training and benchmarks: Naous et al. (2024), "README++: Benchmarking
Multilingual Language Models for Multi-Domain Readability Assessment", EMNLP (MIT)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from arts_metric.data import find_dev_dir
from arts_metric.languages import OTHER_LANGUAGES, check_language

SPLITS = ("train", "val")
#: Languages with README++ splits in the development sets (English trains the learned judge).
READMEPP_LANGUAGES = ("en", *OTHER_LANGUAGES)


def readmepp_rows(code: str, split: str, dev_dir: str | os.PathLike | None = None) -> list[dict]:
    """The rows (``sentence``, ``rating`` 1-6 = CEFR A1-C2, ...) of one language's split;
    ``FileNotFoundError`` naming the file when it is missing."""
    code = check_language(code)
    if code not in READMEPP_LANGUAGES or split not in SPLITS:
        raise ValueError(
            f"README++ here has {', '.join(READMEPP_LANGUAGES)} x {', '.join(SPLITS)}, not {code}/{split}"
        )
    path = Path(find_dev_dir(dev_dir)) / "readmepp" / f"{code}_{split}.jsonl"
    if not path.is_file():
        raise FileNotFoundError(f"README++ {code} {split} split not found: {path} (set ARTS_DEV_DIR)")
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    for i, row in enumerate(rows):
        if not isinstance(row.get("sentence"), str) or row.get("rating") not in range(1, 7):
            raise ValueError(f"{path} row {i}: expected a 'sentence' and a 'rating' 1-6, got {row!r:.120}")
    return rows
