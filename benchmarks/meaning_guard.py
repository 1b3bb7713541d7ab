"""How often the meaning-kept guard (:mod:`arts_metric.systems.meaning`) flags real
simplifications, and how often it catches sources cut to their first nine words.

    .venv/bin/python benchmarks/meaning_guard.py [--pairs 400] [--documents 60] [--seed 0] [--dev-dir DIR]

Sentence pairs from the development sets (read at run time from ``../shared/dev`` or
``$ARTS_DEV_DIR``; no text is written): within each document pair, every source
sentence of 12 words or more is aligned to the simpler version's sentence with the
highest character-trigram TF-IDF cosine, kept when that cosine is in [0.35, 0.9)
(a real rewrite, not a copy). The alignment is lexical, not the guard's encoder, so
it does not pick pairs the guard likes. Sets:

- Cochrane abstracts -> their plain-language summaries (Devaraj et al. 2021): the set
  the cut-short thresholds were chosen on;
- OneStopEnglish advanced -> elementary and advanced -> intermediate (Vajjala & Lucic
  2018): validation only, nothing is chosen on it.

Documents: OneStopEnglish advanced -> elementary articles (``--documents`` of them, whole
texts of about 800 words, embedded chunk by chunk), with two truncations of the source:
its first 9 words and its first half.

For each sentence set, ``--pairs`` sampled pairs: the share of real simplifications flagged
(false alarms, though some aligned simpler sentences do leave out a clause) and the
share of "first nine words of the source" outputs flagged (catches), for the
similarity-only rule (below 0.5) and for the guard (similarity or cut short), in the
same run. Writes ``benchmarks/results/meaning_guard.md`` and prints it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer

from arts_metric.data import find_dev_dir
from arts_metric.systems.meaning import FLAG_BELOW, meaning_checks

RESULTS = Path(__file__).resolve().parent / "results" / "meaning_guard.md"


def sentences(text: str) -> list[str]:
    """Sentences of 5 words or more, split at . ! ? before a capital or quote."""
    out = []
    for para in text.split("\n"):
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z“\"])", para) if len(s.split()) >= 5]
    return out


def aligned(documents: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(source sentence, simpler sentence) pairs aligned by character-trigram TF-IDF cosine."""
    pairs = []
    for hard, easy in documents:
        a, b = sentences(hard), sentences(easy)
        if not a or not b:
            continue
        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3)).fit(a + b)
        cos = (vec.transform(a) @ vec.transform(b).T).toarray()
        for i, src in enumerate(a):
            j = int(cos[i].argmax())
            if 0.35 <= cos[i, j] < 0.9 and len(src.split()) >= 12:
                pairs.append((src, b[j]))
    return pairs


def rates(pairs: list[tuple[str, str]], halves: bool = False) -> dict[str, float]:
    src = [s for s, _ in pairs]
    cuts = {"first 9 words": [" ".join(s.split()[:9]) for s in src]}
    if halves:
        cuts["first half"] = [" ".join(s.split()[: len(s.split()) // 2]) for s in src]
    out = {"pairs": len(pairs)}
    for name, outputs in {"real": [o for _, o in pairs], **cuts}.items():
        checks = meaning_checks(outputs, src)
        out[f"{name} flagged, similarity only"] = (checks["similarity"] < FLAG_BELOW).mean()
        out[f"{name} flagged, guard"] = checks["flagged"].mean()
    return out


def markdown(table: pd.DataFrame) -> str:
    def cell(v: object) -> str:
        return "-" if isinstance(v, float) and v != v else f"{v:.3f}" if isinstance(v, float) else str(v)

    cells = [[cell(v) for v in row] for row in table.itertuples(index=False)]
    lines = ["| " + " | ".join(table.columns) + " |", "|" + " --- |" * len(table.columns)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in cells]) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=400, help="sentence pairs sampled per set")
    parser.add_argument("--documents", type=int, default=60, help="OneStopEnglish articles (whole texts)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dev-dir", default=None, help="development sets (default $ARTS_DEV_DIR or ../shared/dev)")
    args = parser.parse_args()
    dev = find_dev_dir(args.dev_dir)
    cochrane = pd.read_json(dev / "cochrane_pls_val.jsonl", lines=True)
    onestop = pd.read_json(dev / "onestopenglish_dev.jsonl", lines=True)
    levels = {art: dict(zip(g["level"], g["text"])) for art, g in onestop.groupby("article")}
    sets = {
        "Cochrane abstract -> plain-language summary (thresholds chosen here)": aligned(
            list(zip(cochrane["abstract"], cochrane["plain_language_summary"]))
        ),
        "OneStopEnglish advanced -> elementary/intermediate (validation)": aligned(
            [(lv["advanced"], lv[easy]) for lv in levels.values() for easy in ("elementary", "intermediate")]
        ),
    }
    rows = []
    for name, pairs in sets.items():
        sample = pd.Series(range(len(pairs))).sample(n=min(args.pairs, len(pairs)), random_state=args.seed)
        rows.append({"set": name, "aligned": len(pairs), **rates([pairs[i] for i in sample])})
    articles = list(levels.values())[: args.documents]
    rows.append(
        {
            "set": "OneStopEnglish advanced -> elementary, whole articles (validation)",
            "aligned": len(articles),
            **rates([(lv["advanced"], lv["elementary"]) for lv in articles], halves=True),
        }
    )
    table = pd.DataFrame(rows)
    text = (
        "# Meaning-kept guard: false alarms on real simplifications, catches of truncated sources\n\n"
        f"`benchmarks/meaning_guard.py --pairs {args.pairs} --documents {args.documents} --seed {args.seed}`; "
        "shares of sampled pairs flagged (similarity only = below 0.5; guard = below 0.5 or cut short; "
        "'-': not measured).\n\n" + markdown(table)
    )
    RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
