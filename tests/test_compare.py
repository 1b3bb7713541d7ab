"""The metric-comparison table (arts_metric.analysis.metric_comparison) and the two benchmark scripts."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from arts_metric.analysis import comparison_report
from arts_metric.analysis import metric_comparison as compare
from arts_metric.analysis.metric_comparison import Approach, evaluate_approaches
from arts_metric.data import load_history, load_pool_rows
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.ratings.stats import williams_test

REPO = Path(__file__).resolve().parent.parent
# Our own sentences (not from the ARTS data), roughly from easy to hard.
OWN_TEXTS = [
    "The cat sat on the mat.",
    "We went to the park and played ball.",
    "My brother likes apples more than pears.",
    "The weather was cold, so we stayed inside and read books.",
    "Municipal authorities postponed the referendum indefinitely.",
    "The committee's deliberations culminated in a controversial recommendation.",
    "Notwithstanding considerable methodological heterogeneity, the meta-analysis corroborated earlier findings.",
    "Epistemological disagreements regarding falsifiability complicate interdisciplinary collaboration substantially.",
]


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def synthetic():
    rng = np.random.default_rng(3)
    human = rng.normal(size=40)
    good = human + rng.normal(scale=0.3, size=40)
    weak = human + rng.normal(scale=1.5, size=40)
    return human, good, weak


def test_correlations_directions_and_intervals(synthetic):
    human, good, weak = synthetic
    rows = evaluate_approaches(
        [Approach("good", good, kind="formula"), Approach("weak-easier", -weak, "easier", kind="formula")],
        -human,
        "easier",  # human side flipped too: nothing may change
        n_boot=200,
        progress=False,
    )
    by = {r["approach"]: r for r in rows}
    assert by["good"]["pearson"] == pytest.approx(sps.pearsonr(good, human).statistic)
    assert by["good"]["spearman"] == pytest.approx(sps.spearmanr(good, human).statistic)
    assert by["weak-easier"]["kendall"] == pytest.approx(sps.kendalltau(weak, human).statistic)
    for r in rows:
        for stat in compare.STATS:
            assert r[f"{stat}_lo"] < r[stat] < r[f"{stat}_hi"]
        assert r["agreement"] is None and r["kappa"] is None and r["n_texts"] == 40


def test_williams_against_best_formula(synthetic):
    human, good, weak = synthetic
    rows = evaluate_approaches(
        [
            Approach("weak", weak, kind="formula"),
            Approach("good", good, kind="formula"),
            Approach("judge", good + 0.01 * weak, kind="pairwise"),
            Approach("copy of good", good, kind="learned"),
        ],
        human,
        n_boot=50,
        progress=False,
    )
    by = {r["approach"]: r for r in rows}
    assert by["good"]["williams_ref"] is None and by["weak"]["williams_ref"] == "good"
    r12 = sps.pearsonr(weak, human).statistic
    r13 = sps.pearsonr(good, human).statistic
    r23 = sps.pearsonr(weak, good).statistic
    assert by["weak"]["williams_p_pearson"] == pytest.approx(williams_test(r12, r13, r23, 40).pvalue)
    assert by["weak"]["williams_p_pearson"] > 0.95  # clearly not better than the best formula
    # Same scores: no evidence either way (t = 0, p = .5), or undefined (None) when the
    # correlation between the copies comes out exactly 1 (float rounding decides for Pearson).
    copy = by["copy of good"]
    assert copy["williams_p_pearson"] is None or copy["williams_p_pearson"] == pytest.approx(0.5)
    assert copy["williams_p_spearman"] is None and copy["williams_p_kendall"] is None  # rank r23 = 1 exactly
    explicit = evaluate_approaches(
        [Approach("a", good), Approach("b", weak)], human, reference="b", n_boot=50, progress=False
    )
    assert explicit[0]["williams_ref"] == "b" and explicit[0]["williams_p_spearman"] < 0.05


def test_agreement_kappa_and_missing_scores():
    human = np.arange(6, dtype=float)
    scores = [0.0, 1.0, np.nan, 2.5, 4.0, 6.0]
    human_dec = [1, 0, 1, 0, None, 1]
    dec = [1.0, 0.0, 0.2, np.float32(0.0), 1.0, 0.5]  # 0.2 -> 0; 0.5 -> no answer
    (row,) = evaluate_approaches(
        [Approach("x", scores, kind="pairwise", decisions=dec)],
        human,
        human_decisions=human_dec,
        n_boot=50,
        progress=False,
    )
    # comparable: matches 0-3 (4 has no human answer, 5 no decision); 3 of 4 agree
    assert row["n_pairs"] == 4 and row["agreement"] == pytest.approx(0.75)
    # labels x=[1,0,0,0], human=[1,0,1,0]: p_o = .75, p_e = .25*.5 + .75*.5 = .5 -> kappa .5
    assert row["kappa"] == pytest.approx(0.5)
    assert row["n_texts"] == 5 and row["spearman"] == pytest.approx(1.0)
    # A numpy NaN (e.g. float32) is a missing answer too, not a bad decision.
    (row,) = evaluate_approaches(
        [Approach("x", scores, kind="pairwise", decisions=dec[:5] + [np.float32("nan")])],
        human,
        human_decisions=human_dec,
        n_boot=50,
        progress=False,
    )
    assert row["n_pairs"] == 4 and row["agreement"] == pytest.approx(0.75)


def test_bad_input_is_named(synthetic):
    human, good, _ = synthetic
    with pytest.raises(ValueError, match="'short' has 3 scores for 40 texts"):
        evaluate_approaches([Approach("short", [1, 2, 3])], human, progress=False)
    with pytest.raises(ValueError, match="repeated: a"):
        evaluate_approaches([Approach("a", good), Approach("a", good)], human, progress=False)
    with pytest.raises(ValueError, match="higher_is must be 'harder' or 'simpler' \(alias 'easier'\)"):
        evaluate_approaches([Approach("a", good, "up")], human, progress=False)
    with pytest.raises(ValueError, match="reference 'zz'"):
        evaluate_approaches([Approach("a", good)], human, reference="zz", n_boot=20, progress=False)
    with pytest.raises(ValueError, match="decision 1 is 3"):
        evaluate_approaches([Approach("a", good, decisions=[1, 3])], human, human_decisions=[1, 0], progress=False)


def test_pairwise_replay_through_history_judge(data_dir):
    from arts_metric.judges import get_judge

    texts = [r["text"] for r in load_pool_rows("arts94", data_dir)]
    run = load_history("arts94", "gpt-4-1106-preview", "pairwise-run1", data_dir)
    majority = load_history("arts94", "human", "majority", data_dir)
    schedule = [(m.a, m.b) for m in run]
    judge = get_judge("history:arts94/gpt-4-1106-preview/pairwise-run1", texts=texts, data_dir=data_dir)
    approach = compare.pairwise_approach("GPT-4", judge, texts, schedule)
    np.testing.assert_allclose(approach.scores, ratings_from_history(94, run))  # exact replay
    direct = np.mean([m.harder == h.harder for m, h in zip(run, majority)])
    (row,) = evaluate_approaches(
        [approach],
        ratings_from_history(94, majority),
        human_decisions=[m.outcome_a for m in majority],
        n_boot=100,
        progress=False,
    )
    assert row["agreement"] == pytest.approx(direct) and row["n_pairs"] == 376
    assert abs(row["spearman"] - 0.7949) < 0.02  # ARTS paper, Table 3 (GPT4)


def test_compare_metrics_on_own_texts_with_easier_scale(tmp_path):
    ease = -np.array([len(t) for t in OWN_TEXTS], dtype=float)  # a human "ease" equal to minus length
    rows = compare.compare_metrics(OWN_TEXTS, ease, "easier", learned=False, n_boot=50, progress=False)
    names = [r["approach"] for r in rows]
    assert names == list(compare.FORMULA_LABELS.values()) + ["Length (characters)"]
    length = rows[-1]
    assert length["pearson"] == pytest.approx(1.0) and length["kind"] == "baseline"
    fre = rows[names.index("FRE")]
    assert fre["higher_is"] == "easier" and fre["spearman"] > 0.5  # flipped: FRE agrees with "harder = longer"
    comparison_report.write_csv(rows, tmp_path / "t.csv")
    with open(tmp_path / "t.csv", newline="") as fh:
        read = list(csv.DictReader(fh))
    assert list(read[0])[:6] == ["approach", "agreement", "kappa", "pearson", "spearman", "kendall"]
    assert read[-1]["agreement"] == "" and float(read[-1]["pearson"]) == pytest.approx(1.0)
    md = comparison_report.to_markdown(rows)
    assert md.count("\n") == len(rows) + 2 and "(reference)" in md
    comparison_report.plot_rows(rows, tmp_path / "t.png", title="own")
    assert (tmp_path / "t.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_human_file_and_cscore_inputs(tmp_path):
    jsonl = tmp_path / "h.jsonl"
    jsonl.write_text("".join(json.dumps({"text": t, "ease": i}) + "\n" for i, t in enumerate(OWN_TEXTS)))
    texts, scores = compare.load_human_file(jsonl, score_column="ease")
    assert texts == OWN_TEXTS and list(scores) == list(range(8))
    bad = tmp_path / "bad.csv"
    bad.write_text('text,score\n"A sentence.",1\n"Another one.",high\n')
    with pytest.raises(ValueError, match=r"bad.csv line 3: score='high' is not a number"):
        compare.load_human_file(bad)
    with pytest.raises(ValueError, match="no column 'ease'"):
        compare.load_human_file(bad, score_column="ease")

    log = tmp_path / "log.csv"
    log.write_text("participant,text_id,question_id,correct,time_ms\np,B,1,1,2000\np,A,1,0,1000\nq,A,1,1,3000\n")
    texts_csv = tmp_path / "texts.csv"
    texts_csv.write_text("text_id,text\nA,First text.\nB,Second text.\n")
    texts, c = compare.cscore_human_scores(log, texts_csv)
    assert texts == ["Second text.", "First text."] and c == pytest.approx([100 / 2.0, 50 / 2.0])
    texts_csv.write_text("text_id,text\nA,First text.\n")
    with pytest.raises(ValueError, match="no text for text_id"):
        compare.cscore_human_scores(log, texts_csv)
    texts_csv.write_text("text_id,text\nA,First text.\nB,\n")
    with pytest.raises(ValueError, match=r"texts.csv, line 3: text_id 'B' has no text"):
        compare.cscore_human_scores(log, texts_csv)


def test_rater_rows_identity_and_real_data(data_dir):
    majority = load_history("arts94", "human", "majority", data_dir)
    rater = load_history("arts94", "human", "rater01", data_dir)
    rows = compare.rater_agreement_rows({"same": majority, "r1": rater}, majority, 94)
    assert rows[0]["agreement"] == 1.0 and rows[0]["kappa"] == 1.0 and rows[0]["spearman"] == pytest.approx(1.0)
    assert rows[1]["agreement"] == pytest.approx(np.mean([a.harder == b.harder for a, b in zip(rater, majority)]))
    with pytest.raises(ValueError, match="did not decide the reference schedule"):
        compare.rater_agreement_rows({"short": rater[:10]}, majority, 94)


def test_human_agreement_script(data_dir, tmp_path):
    load_script("human_agreement").main(["--data-dir", str(data_dir), "--out", str(tmp_path)])
    with open(tmp_path / "human_agreement.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 16 and all(0.6 < float(r["agreement"]) < 0.95 for r in rows)
    md = (tmp_path / "human_agreement.md").read_text()
    # ARTS paper section 5.4: persona alphas reproduce to four decimals
    for persona, alpha in (
        ("medical", 0.9333),
        ("legislative-administration", 0.9459),
        ("philosophy", 0.9146),
        ("geography", 0.9563),
    ):
        line = next(ln for ln in md.splitlines() if ln.startswith(f"| {persona} |"))
        assert abs(float(line.split("|")[2]) - alpha) < 1e-4


def test_compare_metrics_script_arts94(data_dir, tmp_path):
    module = load_script("compare_metrics")
    module.main(["--data-dir", str(data_dir), "--out", str(tmp_path), "--n-boot", "50", "--no-learned"])
    with open(tmp_path / "arts94_metrics.csv", newline="") as fh:
        rows = {r["approach"]: r for r in csv.DictReader(fh)}
    for name in list(compare.FORMULA_LABELS.values()) + [
        "Length (characters)",
        "GPT-3.5 pairwise (run1)",
        "GPT-4 pairwise (run1)",
        "GPT-4 ranking",
        "GPT-4 individual scores",
    ]:
        assert name in rows
    gpt4 = rows["GPT-4 pairwise (run1)"]
    assert float(gpt4["agreement"]) > 0.8 and int(gpt4["n_pairs"]) == 376
    assert float(gpt4["spearman"]) > float(rows["Length (characters)"]["spearman"]) > float(rows["FRE"]["spearman"])
    assert rows["GPT-4 ranking"]["agreement"] == "" and int(rows["GPT-4 ranking"]["n_texts"]) == 93
    assert (tmp_path / "arts94_metrics.png").stat().st_size > 1000
    assert "GPT-4 pairwise (run1)" in (tmp_path / "arts94_metrics.md").read_text()


def test_rsrs_and_learned_rows(data_dir):
    """The optional rows plug in: RSRS from a tiny GPT-2 built in test_rsrs, and our
    learned judge, which must beat plain length (the baseline) on ARTS94."""
    from test_rsrs import make_model, make_tokenizer

    from arts_metric.analysis.rsrs import RSRS

    rows = compare.compare_metrics(
        OWN_TEXTS,
        np.arange(8.0),
        rsrs_model=RSRS(make_model(), make_tokenizer(), progress=False),
        learned=False,
        n_boot=30,
        progress=False,
    )
    assert rows[-1]["approach"] == "RSRS" and rows[-1]["kind"] == "lm" and rows[-1]["n_texts"] == 8

    texts = [r["text"] for r in load_pool_rows("arts94", data_dir)]
    human = ratings_from_history(94, load_history("arts94", "human", "majority", data_dir))
    rows = {
        r["approach"]: r for r in compare.compare_metrics(texts, human, formulas=["fre"], n_boot=30, progress=False)
    }
    assert rows["Learned judge (ours)"]["spearman"] > rows["Length (characters)"]["spearman"] > rows["FRE"]["spearman"]
