"""How the meaning-kept measure (:mod:`arts_metric.systems.meaning`, source recall)
ranks and flags real simplifications against sources cut short.

    .venv/bin/python benchmarks/meaning_guard.py [--pairs 400] [--seed 0] [--dev-dir DIR] [--dump FILE.csv]

Read at run time from ``../shared/dev`` or ``$ARTS_DEV_DIR`` (no text is written):

- documents: every Cochrane abstract -> its plain-language summary (Devaraj et al.
  2021; the thresholds were chosen on these), every OneStopEnglish article advanced ->
  elementary and advanced -> intermediate (Vajjala & Lucic 2018; validation only,
  nothing is chosen on it);
- sentence pairs from the same sets: within each document pair, every source sentence
  of 12 words or more aligned to the simpler version's sentence with the highest
  character-trigram TF-IDF cosine, kept when that cosine is in [0.35, 0.9) (a real
  rewrite, not a copy; the alignment is lexical, not the measure's encoder, so it does
  not pick pairs the measure likes); ``--pairs`` sampled per set. A second construction
  also lets a source sentence align to two consecutive simpler sentences (a sentence
  split in two, common in simplification), which a one-to-one alignment sees as half
  the rewrite.

Against each real simplification, two systems that cut the source: its first 5 words
and its first half (in words). Per set: the share of real simplifications flagged
(false alarms), and per cut the share of inputs where the cut keeps less than the real
simplification (lower ``meaning_kept``, what it keeps of the source's worse-kept end; and,
for comparison, lower recall of the whole source) and the share flagged. Writes
``benchmarks/results/meaning_guard.md`` and prints it; ``--dump`` writes every check.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd
from sklearn.feature_extraction.text import TfidfVectorizer

from arts_metric.data import find_dev_dir
from arts_metric.systems.meaning import CUT_SHORT, CUT_SHORT_T, END_SHARE, FLAG_BELOW, system_checks

RESULTS = Path(__file__).resolve().parent / "results" / "meaning_guard.md"


def sentences(text: str) -> list[str]:
    """Sentences of 5 words or more, split at . ! ? before a capital or quote."""
    out = []
    for para in text.split("\n"):
        out += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z“\"])", para) if len(s.split()) >= 5]
    return out


def aligned(documents: list[tuple[str, str]], splits: bool = False) -> list[tuple[str, str]]:
    """(source sentence, simpler sentence) pairs aligned by character-trigram TF-IDF cosine;
    with ``splits``, the simpler side may also be two consecutive sentences."""
    pairs = []
    for hard, easy in documents:
        a, b = sentences(hard), sentences(easy)
        if not a or not b:
            continue
        candidates = b + ([f"{b[j]} {b[j + 1]}" for j in range(len(b) - 1)] if splits else [])
        vec = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3)).fit(a + b)
        cos = (vec.transform(a) @ vec.transform(candidates).T).toarray()
        for i, src in enumerate(a):
            j = int(cos[i].argmax())
            if 0.35 <= cos[i, j] < 0.9 and len(src.split()) >= 12:
                pairs.append((src, candidates[j]))
    return pairs


CUTS = {
    "first 5 words": lambda s: " ".join(s.split()[:5]),
    "first half": lambda s: " ".join(s.split()[: len(s.split()) // 2]),
}


def rates(pairs: list[tuple[str, str]], dump: list[dict] | None = None) -> dict[str, float]:
    """Shares over pairs: real simplifications flagged, and per cut of the source, the share
    of inputs where the cut keeps less than the real simplification and the share flagged."""
    src = [s for s, _ in pairs]
    outputs = {"real": [o for _, o in pairs], **{name: [cut(s) for s in src] for name, cut in CUTS.items()}}
    checks = system_checks(outputs, src)
    real = checks["real"]
    out: dict[str, float] = {"pairs": len(pairs), "real flagged": real["flagged"].mean()}
    for name in CUTS:
        out[f"{name}: kept less than real"] = (checks[name]["meaning_kept"] < real["meaning_kept"]).mean()
        out[f"{name}: whole-source recall below real"] = (checks[name]["recall"] < real["recall"]).mean()
        out[f"{name}: flagged"] = checks[name]["flagged"].mean()
    if dump is not None:
        for name, frame in checks.items():
            dump += [{"system": name, "pair": i, **row} for i, row in enumerate(frame.to_dict("records"))]
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
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dev-dir", default=None, help="development sets (default $ARTS_DEV_DIR or ../shared/dev)")
    parser.add_argument("--dump", default=None, help="also write every check to this CSV (no text in it)")
    args = parser.parse_args()
    dev = find_dev_dir(args.dev_dir)
    cochrane = pd.read_json(dev / "cochrane_pls_val.jsonl", lines=True)
    onestop = pd.read_json(dev / "onestopenglish_dev.jsonl", lines=True)
    levels = {art: dict(zip(g["level"], g["text"])) for art, g in onestop.groupby("article")}
    coch_docs = list(zip(cochrane["abstract"], cochrane["plain_language_summary"]))
    ose_docs = [(lv["advanced"], lv[easy]) for lv in levels.values() for easy in ("elementary", "intermediate")]
    sets = {
        "Cochrane abstract -> plain-language summary, documents (thresholds chosen here)": (coch_docs, False),
        "OneStopEnglish advanced -> elementary/intermediate, documents (validation)": (ose_docs, False),
        "Cochrane, aligned sentence pairs (thresholds chosen here)": (aligned(coch_docs), True),
        "OneStopEnglish, aligned sentence pairs (validation)": (aligned(ose_docs), True),
        "Cochrane, sentences aligned to one or two sentences (thresholds chosen on Cochrane)": (
            aligned(coch_docs, splits=True),
            True,
        ),
        "OneStopEnglish, sentences aligned to one or two sentences (validation)": (
            aligned(ose_docs, splits=True),
            True,
        ),
    }
    rows, dump = [], [] if args.dump else None
    for name, (pairs, sample) in sets.items():
        chosen = pairs
        if sample:
            picks = pd.Series(range(len(pairs))).sample(n=min(args.pairs, len(pairs)), random_state=args.seed)
            chosen = [pairs[i] for i in sorted(picks)]
        part = [] if dump is not None else None
        rows.append({"set": name, "available": len(pairs), **rates(chosen, part)})
        if part is not None:
            dump += [{"set": name, **r} for r in part]
        print(rows[-1], flush=True)
    if args.dump:
        pd.DataFrame(dump).to_csv(args.dump, index=False)
    table = pd.DataFrame(rows)
    text = (
        "# Meaning kept (source recall): real simplifications against sources cut short\n\n"
        f"`benchmarks/meaning_guard.py --pairs {args.pairs} --seed {args.seed}`; flagged = recall below "
        f"{FLAG_BELOW:g} or cut short (the source's second half recalled {CUT_SHORT:g} less than its first, by more "
        f"than {CUT_SHORT_T:g} standard errors); "
        "'kept less than real' = the cut's meaning kept (what it keeps of the source's worse-kept end, its first or "
        f"last {END_SHARE:.0%} of content word pieces, beyond what the rest of the source already says) below the real "
        "simplification's, per input; 'whole-source recall below real' = the same with the recall of the whole "
        "source, for comparison.\n\n" + markdown(table)
    )
    RESULTS.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
