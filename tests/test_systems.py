"""Ranking systems (`arts_metric.systems`, `arts compare`): systems whose order is known,
built at test time from the ARTS data, with the learned judge and with an LLM judge
through the HTTP test server."""

from __future__ import annotations

import json
import math
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from cli_inprocess import arts
from llm_server import make_server  # noqa: F401  (fixture)
from scipy import stats as sps

from arts_metric import cli
from arts_metric import data as arts_data
from arts_metric.judges import get_judge
from arts_metric.pool import load_pool
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.scoring.api import score_texts
from arts_metric.systems import SystemComparison, compare_systems, plot_comparison
from arts_metric.systems.human import correlation_rows
from arts_metric.systems.ranks import shared_ranks
from arts_metric.systems.resampling import (
    bootstrap_counts,
    paired_randomization_test,
    percentile_interval,
    resampled_means,
)
from arts_metric.systems.result import format_p

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "compare"
N_INPUTS = 40
LEADERBOARD_COLUMNS = {
    "system",
    "n",
    "arts_mean",
    "arts_mean_low",
    "arts_mean_high",
    "arts_delta_mean",
    "rating",
    "rating_low",
    "rating_high",
    "win_rate",
}
PAIRWISE_COLUMNS = {"system_a", "system_b", "arts_mean_diff", "p_value", "win_rate_a"}


@pytest.fixture(scope="module")
def bands(data_dir):
    """Systems of known order: for N_INPUTS inputs, outputs drawn from increasing bands of
    GPT-4's ARTS3000 ratings (the shipped pool ratings), sources from the hardest band,
    a copy-of-source system and a system identical to `mid`. The GPT-4 rating of every
    text comes along as a stand-in human difficulty score (higher = harder)."""
    pool = load_pool("arts3000", data_dir=data_dir)
    texts = pool.get_texts()
    order = np.argsort(pool.ratings, kind="stable")
    rng = np.random.default_rng(12)

    def band(lo: float, hi: float) -> np.ndarray:
        idx = order[int(lo * len(order)) : int(hi * len(order))]
        return rng.choice(idx, N_INPUTS, replace=False)

    picks = {"easy": band(0.05, 0.15), "mid": band(0.40, 0.50), "hard": band(0.75, 0.85)}
    src = band(0.90, 1.00)
    outputs = {name: [texts[i] for i in idx] for name, idx in picks.items()}
    outputs["copy"] = [texts[i] for i in src]
    outputs["mid_copy"] = list(outputs["mid"])
    gpt4 = {name: [float(pool.ratings[i]) for i in idx] for name, idx in picks.items()}
    gpt4["copy"] = [float(pool.ratings[i]) for i in src]
    gpt4["mid_copy"] = list(gpt4["mid"])
    return outputs, [texts[i] for i in src], gpt4


@pytest.fixture(scope="module")
def learned_comparison(bands):
    outputs, sources, gpt4 = bands
    return compare_systems(outputs, sources=sources, human_scores=gpt4, human_higher_is="harder", n_resamples=500)


def test_leaderboard_orders_systems_of_known_difficulty(learned_comparison):
    lb = learned_comparison.leaderboard
    assert LEADERBOARD_COLUMNS <= set(lb.columns) and {"fkgl_mean", "fre_mean", "dale_chall_mean"} <= set(lb.columns)
    assert list(lb["rank"]) == [1, 2, 2, 4, 5]  # mid and its identical copy share a place
    assert lb["system"].iloc[0] == "easy" and list(lb["system"].iloc[3:]) == ["hard", "copy"]
    assert set(lb["system"].iloc[1:3]) == {"mid", "mid_copy"}
    assert lb["arts_mean"].is_monotonic_increasing
    by = lb.set_index("system")
    # the head-to-head ratings agree with the pool view; mid and its copy tie exactly
    assert by.loc["easy", "rating"] < by.loc["mid", "rating"] < by.loc["hard", "rating"] < by.loc["copy", "rating"]
    assert by.loc["mid", "rating"] == pytest.approx(by.loc["mid_copy", "rating"], abs=1e-6)
    assert by.loc["easy", "win_rate"] < 0.5 < by.loc["copy", "win_rate"]
    assert lb["rating"].mean() == pytest.approx(1200.0)
    # the simplicity rating reads the other way round: the simplest system has the highest
    assert list(lb["simplicity_rating"]) == pytest.approx(list(2400.0 - lb["rating"]))
    assert by.loc["easy", "simplicity_rating"] == lb["simplicity_rating"].max()
    assert list(lb["judged_simpler"]) == pytest.approx(list(1.0 - lb["win_rate"]))
    assert (lb["simplicity_rating_low"] <= lb["simplicity_rating"]).all()
    assert (lb["simplicity_rating"] <= lb["simplicity_rating_high"]).all()
    # the copy baseline is as hard as its sources and gains nothing
    assert by.loc["copy", "arts_delta_mean"] == pytest.approx(0.0, abs=1e-9)
    assert by.loc["easy", "arts_delta_mean"] > by.loc["hard", "arts_delta_mean"] > 0
    assert (lb["n"] == N_INPUTS).all()


def test_intervals_contain_the_point_estimates(learned_comparison):
    lb = learned_comparison.leaderboard
    checked = 0
    for col in [c for c in lb.columns if f"{c}_low" in lb.columns]:
        low, value, high = lb[f"{col}_low"].to_numpy(), lb[col].to_numpy(), lb[f"{col}_high"].to_numpy()
        assert np.all(low <= value + 1e-9) and np.all(value <= high + 1e-9), col
        checked += 1
    assert checked >= 6  # arts, delta, rating, three formulas
    pw = learned_comparison.pairwise
    for col in ("arts_mean_diff", "win_rate_a"):
        assert np.all(pw[f"{col}_low"] <= pw[col] + 1e-9) and np.all(pw[col] <= pw[f"{col}_high"] + 1e-9)
    # a real spread, not a degenerate interval
    assert (
        lb.set_index("system").loc["easy", "arts_mean_high"] - lb.set_index("system").loc["easy", "arts_mean_low"]
    ) > 0.01


def test_a_system_against_its_own_copy(learned_comparison):
    pw = learned_comparison.pairwise
    assert len(pw) == 10 and PAIRWISE_COLUMNS <= set(pw.columns)
    pair = {("mid", "mid_copy"), ("mid_copy", "mid")}
    row = pw[[(a, b) in pair for a, b in zip(pw.system_a, pw.system_b)]]
    assert len(row) == 1
    row = row.iloc[0]
    assert row["p_value"] == pytest.approx(1.0) and row["win_rate_p_value"] == pytest.approx(1.0)
    assert row["win_rate_a"] == 0.5 and row["arts_mean_diff"] == 0.0 and row["matches"] == N_INPUTS
    wr = learned_comparison.win_rates
    assert wr.loc["mid", "mid_copy"] == 0.5
    # identical outputs are drawn without asking the judge
    assert learned_comparison.info["head_to_head"]["identical"] == N_INPUTS


def test_clearly_different_systems_are_significant(learned_comparison):
    pw = learned_comparison.pairwise.set_index(["system_a", "system_b"])
    row = pw.loc[("easy", "hard")]
    assert row["arts_mean_diff"] < 0 and row["p_value"] < 0.001
    assert row["win_rate_a"] < 0.3 and row["win_rate_p_value"] < 0.001
    assert row["arts_mean_diff_high"] < 0
    # the pool view's p-values follow the paired differences
    per = learned_comparison.per_output.pivot(index="input", columns="system", values="arts")
    assert row["arts_mean_diff"] == pytest.approx((per["easy"] - per["hard"]).mean())


def test_win_rates_are_complementary(learned_comparison):
    m = learned_comparison.win_rates.to_numpy()
    off = ~np.eye(len(m), dtype=bool)
    np.testing.assert_allclose((m + m.T)[off], 1.0)
    assert np.isnan(np.diag(m)).all()
    assert learned_comparison.info["head_to_head"]["method"] == "compare_close"
    assert learned_comparison.info["head_to_head"]["decided"] == 10 * N_INPUTS


def test_pool_view_places_outputs_as_compute_does(learned_comparison, bands):
    outputs, sources, _ = bands
    alone = score_texts(outputs["hard"], sources=sources)
    per = learned_comparison.per_output.set_index(["system", "input"])
    # to float32 noise: MiniLM embeds the texts in other batches here
    np.testing.assert_allclose(per.loc["hard", "arts"].to_numpy(), alone["arts"], atol=1e-6)
    np.testing.assert_allclose(
        per.loc["hard", "arts_delta"].to_numpy(), np.asarray(alone["arts_delta"], float), atol=1e-6
    )
    np.testing.assert_allclose(per.loc["hard", "fkgl"].to_numpy(), alone["fkgl"])


def test_correlations_with_human_scores(learned_comparison, bands):
    corr = learned_comparison.correlations.set_index(["level", "measure"])
    # five systems whose GPT-4 difficulty is known: the system-level order agrees
    assert corr.loc[("system", "arts_mean"), "spearman"] > 0.8
    assert corr.loc[("system", "rating"), "kendall"] > 0.6
    assert corr.loc[("system", "arts_mean"), "n"] == 5
    assert corr.loc[("segment", "arts"), "n"] == 5 * N_INPUTS
    assert corr.loc[("segment", "arts"), "spearman"] > 0.5
    # FRE is higher = easier: its sign is flipped, so agreement is positive too
    assert corr.loc[("segment", "fre"), "spearman"] > 0.2
    # the direction of the human scores is honoured
    outputs, sources, gpt4 = bands
    flipped = compare_systems(
        outputs,
        sources=sources,
        human_scores={k: [-v for v in s] for k, s in gpt4.items()},
        human_higher_is="simpler",
        n_resamples=50,
        views="pool",
        formulas=None,
    )
    again = flipped.correlations.set_index(["level", "measure"])
    assert again.loc[("segment", "arts"), "spearman"] == pytest.approx(corr.loc[("segment", "arts"), "spearman"])


def test_to_dir_writes_every_table_and_the_figure(learned_comparison, tmp_path):
    files = learned_comparison.to_dir(tmp_path / "out")
    expected = {
        "leaderboard.csv",
        "leaderboard.md",
        "leaderboard.json",
        "pairwise.csv",
        "pairwise.md",
        "win_rates.csv",
        "per_output.csv",
        "correlations.csv",
        "comparison.json",
        "leaderboard.png",
    }
    assert set(files) == expected and all(p.is_file() for p in files.values())
    lb = pd.read_csv(files["leaderboard.csv"])
    assert list(lb["system"]) == list(learned_comparison.leaderboard["system"])
    assert PAIRWISE_COLUMNS <= set(pd.read_csv(files["pairwise.csv"]).columns)
    rows = json.loads(files["leaderboard.json"].read_text())
    assert rows[0]["system"] == "easy" and rows[0]["arts_mean"] == pytest.approx(lb["arts_mean"][0])
    assert files["leaderboard.png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    md = files["leaderboard.md"].read_text()
    assert md.splitlines()[2].startswith("| 1 | easy |")
    info = json.loads(files["comparison.json"].read_text())
    assert info["n_inputs"] == N_INPUTS and info["head_to_head"]["matches"] == 10 * N_INPUTS


def test_figure_has_the_interval_panels_and_the_heat_map(learned_comparison):
    fig = plot_comparison(learned_comparison)
    titles = [ax.get_title() for ax in fig.axes]
    assert any("mean ARTS" in t for t in titles) and any("simplicity rating" in t for t in titles)
    assert any("row judged simpler" in t for t in titles)
    rating = next(ax for ax in fig.axes if "simplicity rating" in ax.get_title())
    assert "higher = simpler" in rating.get_xlabel()


def test_judged_simpler_is_labelled_as_the_mean_probability_it_is(learned_comparison):
    """The learned judge gives each head-to-head match a probability: `judged_simpler` is their mean,
    not a share of matches, and every table and note says so."""
    from arts_metric.systems.ranks import SIMPLICITY_NOTE

    pw = learned_comparison.pairwise
    value = (1.0 - pw["win_rate_a"]) * pw["matches"]
    assert (abs(value - value.round()) > 1e-6).any()  # no whole number of matches won
    assert "| mean P(judged simpler) |" in learned_comparison.to_markdown().splitlines()[0]
    assert "| mean P(a judged simpler) |" in learned_comparison.pairwise_markdown().splitlines()[0]
    assert "mean P(judged simpler): the probability" in SIMPLICITY_NOTE and "averaged over" in SIMPLICITY_NOTE
    titles = [ax.get_title() for ax in plot_comparison(learned_comparison).axes]
    assert "mean P(row judged simpler\nthan column)" in titles


def test_references_are_ranked_beside_systems(bands):
    outputs, sources, _ = bands
    res = compare_systems(
        {"easy": outputs["easy"], "hard": outputs["hard"]},
        sources=sources,
        references=outputs["mid"],
        n_resamples=50,
        formulas=None,
    )
    lb = res.leaderboard
    assert list(lb["system"]) == ["easy", "reference", "hard"]
    assert list(lb["kind"]) == ["system", "reference", "system"]
    assert len(res.pairwise) == 3


def test_one_system_has_no_pairwise_table(bands):
    outputs, sources, _ = bands
    res = compare_systems({"only": outputs["easy"][:5]}, sources=sources[:5], n_resamples=50, formulas=None)
    assert len(res.leaderboard) == 1 and len(res.pairwise) == 0 and list(res.pairwise.columns)
    assert math.isnan(res.leaderboard["rating"][0]) and res.leaderboard["arts_mean"][0] > 0
    assert "head_to_head" not in res.info
    assert isinstance(res, SystemComparison)
    assert res.to_markdown().count("\n") == 3


def test_outputs_without_words_are_scored_as_compute_scores_them(bands):
    outputs, sources, _ = bands
    odd = list(outputs["easy"][:4])
    odd[2] = "... !!!"
    try:
        with warnings.catch_warnings(record=True) as alone_warned:
            warnings.simplefilter("always")
            expected = score_texts(odd, sources=sources[:4], formulas=["fkgl"])
    except ValueError as exc:  # compute refuses it: so does the comparison, naming the system and input
        assert "texts[2]" in str(exc) or "predictions[2]" in str(exc)
        with pytest.raises(ValueError, match=r"outputs\['odd'\]\[2\]"):
            compare_systems({"odd": odd, "easy": outputs["easy"][:4]}, sources=sources[:4], formulas=["fkgl"])
        return
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        res = compare_systems(
            {"odd": odd, "easy": outputs["easy"][:4]}, sources=sources[:4], n_resamples=20, formulas=["fkgl"]
        )
    per = res.per_output.set_index(["system", "input"])
    np.testing.assert_allclose(per.loc["odd", "arts"].to_numpy(), np.asarray(expected["arts"], float), atol=1e-6)
    np.testing.assert_allclose(per.loc["odd", "fkgl"].to_numpy(), np.asarray(expected["fkgl"], float))
    # what compute warns about predictions[2], the comparison says about that system's output
    if any("predictions[2]" in str(w.message) for w in alone_warned):
        assert any("outputs['odd'][2]" in str(w.message) for w in warned)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(outputs={"a": ["x y", "z w"], "b": ["x y"]}), r"'b' has 1"),
        (
            dict(outputs={"a": ["x y", "z w"], "b": ["x y", "q"]}, sources=["s t"]),
            r"'a' has 2, 'b' has 2 \(sources has 1\)",
        ),
        (dict(outputs={}), "at least one system"),
        (dict(outputs={"a": ["x y", "  "]}), r"outputs\['a'\]\[1\]"),
        (dict(outputs={"a": ["x y"], "": ["z"]}), "non-empty strings"),
        (dict(outputs={"a": ["x y"]}, references={"a": ["z"]}), "also system names"),
        (dict(outputs={"a": ["x y"], "b": ["z"]}, human_scores={"a": [1.0]}), r"lacks system\(s\) 'b'"),
        (dict(outputs={"a": ["x y"]}, human_scores={"a": [float("nan")]}), r"human_scores\['a'\]\[0\]"),
        (dict(outputs={"a": ["x y"]}, human_scores={"a": [1.0], "c": [2.0]}), "unknown system"),
        (dict(outputs={"a": ["x y"]}, views="pool,elo"), "views"),
        (dict(outputs={"a": ["x y"]}, n_resamples=0), "n_resamples"),
        (dict(outputs={"a": ["x y"]}, n_permutations=0), "n_permutations"),
        (dict(outputs={"a": ["x y"]}, level=1.5), "level"),
        (dict(outputs={"a": ["x y"]}, human_higher_is="up"), "human_higher_is"),
        (dict(outputs={"a": ["x y"]}, placement="nope"), "placement"),
    ],
)
def test_bad_input_is_a_clear_error_before_any_judge_call(kwargs, message):
    outputs = kwargs.pop("outputs")
    # an unreachable endpoint: any judge call would fail differently
    with pytest.raises(ValueError, match=message):
        compare_systems(outputs, judge="openai:m@http://127.0.0.1:9/v1", **kwargs)


# -- resampling -----------------------------------------------------------------


def test_randomization_test_matches_scipy_exactly_for_few_inputs():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=10), rng.normal(0.6, 1.0, size=10)
    ours = paired_randomization_test(x - y, n_permutations=5000)
    theirs = sps.permutation_test(
        (x, y),
        lambda a, b, axis: np.mean(a - b, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=5000,
    ).pvalue
    assert ours == pytest.approx(theirs, abs=1e-12)  # both enumerate all 1024 sign patterns


def test_randomization_test_is_calibrated_and_powerful():
    rng = np.random.default_rng(4)
    null = [paired_randomization_test(rng.normal(size=60), 999, seed=s) for s in range(300)]
    assert 0.02 < np.mean(np.array(null) < 0.05) < 0.09  # about 5% false positives
    shifted = rng.normal(0.5, 1.0, size=60)
    p = paired_randomization_test(shifted, 9999)
    assert p < 0.01 and p == pytest.approx(sps.ttest_1samp(shifted, 0.0).pvalue, abs=0.005)
    assert paired_randomization_test(np.zeros(30)) == 1.0
    assert math.isnan(paired_randomization_test(np.array([np.nan, np.nan])))
    assert paired_randomization_test(np.array([1.0, np.nan, 2.0, 3.0]), 10) == 0.25  # exact over the 3 usable


def test_bootstrap_helpers():
    counts = bootstrap_counts(7, 200, seed=1)
    assert counts.shape == (200, 7) and (counts.sum(axis=1) == 7).all()
    assert np.array_equal(counts, bootstrap_counts(7, 200, seed=1))
    values = np.array([[1.0, 2.0], [3.0, np.nan], [5.0, 4.0]])
    means = resampled_means(values, np.array([[1, 1, 1], [0, 3, 0]]))
    np.testing.assert_allclose(means[0], [3.0, 3.0])
    assert means[1, 0] == 3.0 and np.isnan(means[1, 1])
    low, high = percentile_interval(np.arange(101.0)[:, None], 0.9)
    assert low[0] == pytest.approx(5.0) and high[0] == pytest.approx(95.0)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_counts(3, 0)


def test_correlation_rows_report_undefined_instead_of_failing():
    human = [np.array([1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0])]
    rows = correlation_rows(
        human,
        {"arts": np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])},
        {"arts_mean": np.array([0.3, 0.4])},
        {"arts": True, "arts_mean": True},
    )
    assert {r["level"] for r in rows} == {"system", "segment"}
    assert all(math.isnan(r["spearman"]) and r["note"] for r in rows)


# -- an LLM judge through the HTTP test server -------------------------------------


@pytest.fixture(scope="module")
def arts94(data_dir):
    texts = [r["text"] for r in arts_data.load_pool_rows("arts94", data_dir)]
    human = ratings_from_history(94, arts_data.load_history("arts94", "human", "majority", data_dir))
    return texts, human


def _length_systems(texts, n=6):
    """Three systems whose outputs get longer: the test server, without a record of a
    pair, judges the shorter text easier, so their order is known."""
    by_len = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    short, medium, long_ = by_len[:n], by_len[40 : 40 + n], by_len[-n:]
    used = set(short) | set(medium) | set(long_)
    outputs = {
        "short": [texts[i] for i in short],
        "medium": [texts[i] for i in medium],
        "long": [texts[i] for i in long_],
    }
    return outputs, used


def test_llm_head_to_head_requests_are_counted_cached_and_budgeted(make_server, arts94, tmp_path):
    texts, human = arts94
    outputs, used = _length_systems(texts)
    pool = [{"text": t, "elo": float(r)} for i, (t, r) in enumerate(zip(texts, human)) if i not in used]
    server = make_server(texts)
    spec = f"openai:m@{server.base_url}"
    opts = dict(cache_dir=str(tmp_path / "cache"), progress=False)
    kwargs = dict(pool=pool, placement="mle", placement_options={"budget": 4}, formulas=None, n_resamples=100)

    first = compare_systems(outputs, judge=get_judge(spec, **opts), **kwargs)
    h2h, pv = first.info["head_to_head"], first.info["pool_view"]
    assert h2h["requests"] == 6 * 3 and h2h["asked"] == 18 and h2h["decided"] == 18 and h2h["method"] == "compare"
    assert pv["requests"] == pv["judge_calls"] >= 4 * 18  # 18 distinct outputs, at least 4 matches each
    total = pv["requests"] + 18
    assert server.chat_requests == first.info["requests"] == total
    assert server.stats["kind_pairwise"] == server.chat_requests
    assert list(first.leaderboard["system"]) == ["short", "medium", "long"]
    wr = first.win_rates
    assert wr.loc["short", "long"] == 0.0 and wr.loc["long", "short"] == 1.0
    assert first.leaderboard["rating"].is_monotonic_increasing

    # a rerun with a new judge on the same cache sends nothing and gives the same tables
    again = compare_systems(outputs, judge=get_judge(spec, **opts), **kwargs)
    assert again.info["requests"] == 0 and server.chat_requests == total
    pd.testing.assert_frame_equal(again.leaderboard, first.leaderboard)

    # both orders: two requests per match (none cached yet for the reversed order of half of them)
    both = compare_systems(
        outputs, judge=get_judge(spec, both_orders=True, **opts), views="head_to_head", n_resamples=50
    )
    assert both.info["head_to_head"]["requests"] + both.info["head_to_head"]["cached"] == 2 * 18
    assert list(both.leaderboard["system"]) == ["short", "medium", "long"]


def test_llm_budget_leaves_unanswered_matches_out(make_server, arts94, tmp_path):
    texts, _ = arts94
    outputs, _ = _length_systems(texts)
    server = make_server(texts)
    judge = get_judge(f"openai:m@{server.base_url}", cache_dir=str(tmp_path), progress=False, max_requests=10)
    with pytest.warns(RuntimeWarning, match="budget"):
        res = compare_systems(outputs, judge=judge, views="head_to_head", n_resamples=50)
    h2h = res.info["head_to_head"]
    assert server.chat_requests == h2h["requests"] == 10
    assert h2h["decided"] == 10 and h2h["unanswered"] == 8 and h2h["invalid"] == 0
    assert res.pairwise["matches"].sum() == 10
    # never coin-flipped: every decided match is the server's length rule
    decided = res.win_rates.to_numpy()
    assert np.all(np.isin(decided[np.isfinite(decided)], [0.0, 1.0]))


# -- the command line ----------------------------------------------------------------


def test_arts_compare_on_the_shipped_examples(tmp_path):
    out = tmp_path / "cmp"
    proc = arts(
        "compare",
        "--sources",
        str(EXAMPLES / "sources.txt"),
        "--system",
        f"light={EXAMPLES / 'light.txt'}",
        "--system",
        f"strong={EXAMPLES / 'strong.txt'}",
        "--system",
        f"copy={EXAMPLES / 'sources.txt'}",
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("| rank | system |") and "simplicity rating [95% CI]" in lines[0]
    assert [line.split("|")[2].strip() for line in lines[2:5]] == ["strong", "light", "copy"]
    assert "higher = simpler" in proc.stdout  # the simplicity rating is explained where it is printed
    assert (out / "pairwise.md").read_text() in proc.stdout  # the significance table is printed too
    assert proc.stdout.startswith((out / "leaderboard.md").read_text())
    assert (out / "leaderboard.png").is_file() and (out / "pairwise.csv").is_file()
    lb = pd.read_csv(out / "leaderboard.csv")
    assert lb.set_index("system").loc["copy", "arts_delta_mean"] == pytest.approx(0.0, abs=1e-9)
    assert "24 of 24 matches decided" in proc.stderr
    assert "report what is kept beside it" in proc.stderr  # simplicity is not the whole verdict
    assert "meaning kept (flagged)" in lines[0] and "Meaning kept: source recall" in proc.stdout
    # the "Rank systems" guide shows what this command prints
    guide = (ROOT / "docs" / "guides" / "rank-systems.md").read_text(encoding="utf-8")
    assert proc.stdout in guide and (out / "pairwise.md").read_text() in guide


def test_arts_compare_reads_human_scores(tmp_path, capsys):
    lines = {name: (EXAMPLES / f"{name}.txt").read_text().splitlines() for name in ("light", "strong")}
    human = tmp_path / "human.csv"
    rows = ["system,index,score"]
    # a stand-in human difficulty score: longer = harder, with inputs listed out of order
    for name, texts in lines.items():
        rows += [f"{name},{i},{len(texts[i])}" for i in reversed(range(len(texts)))]
    human.write_text("\n".join(rows) + "\n")
    code = cli.main(
        [
            "compare",
            "--system",
            f"light={EXAMPLES / 'light.txt'}",
            "--system",
            f"strong={EXAMPLES / 'strong.txt'}",
            "--human",
            str(human),
            "--human-higher-is",
            "harder",
            "--formulas",
            "none",
            "--out",
            str(tmp_path / "o"),
            "--resamples",
            "50",
        ]
    )
    assert code == 0
    corr = pd.read_csv(tmp_path / "o" / "correlations.csv").set_index(["level", "measure"])
    assert corr.loc[("segment", "arts"), "n"] == 16 and corr.loc[("segment", "arts"), "spearman"] > 0.3
    assert corr.loc[("system", "arts_mean"), "note"].startswith("need at least 3")  # two systems only


def test_arts_compare_without_out_prints_the_leaderboard_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["compare", "--system", f"light={EXAMPLES / 'light.txt'}", "--system", f"strong={EXAMPLES / 'strong.txt'}"]
    code = cli.main([*argv, "--formulas", "none", "--resamples", "200", "--permutations", "200", "--no-meaning"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    board = [ln for ln in captured.out.splitlines() if ln.startswith("| ")]
    assert board[0].startswith("| rank | system |") and {"light", "strong"} <= {
        ln.split("|")[2].strip() for ln in board
    }
    assert "wrote" not in captured.err and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--system", "a"], "expected NAME=FILE"),
        (["--system", "a=examples/compare/light.txt", "--system", "a=examples/compare/strong.txt"], "given twice"),
        (["--system", "a=examples/compare/light.txt", "--system", "b={short}"], r"'b' has 3"),
        (["--system", "a=nope.txt"], "input file not found"),
        (["--system", "a=examples/compare/light.txt", "--views", "x"], "views"),
    ],
)
def test_arts_compare_errors_are_one_line(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    short = tmp_path / "short.txt"
    short.write_text("One.\nTwo.\nThree.\n")
    code = cli.main(["compare", *(a.replace("{short}", str(short)) for a in argv), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("arts compare: error:") and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def test_human_file_errors_name_the_line(tmp_path, capsys):
    human = tmp_path / "h.csv"
    human.write_text("system,score\nlight,1\nlight,x\n")
    code = cli.main(
        ["compare", "--system", f"light={EXAMPLES / 'light.txt'}", "--human", str(human), "--out", str(tmp_path / "o")]
    )
    assert code == 2 and "line 3" in capsys.readouterr().err
    human.write_text("system,score\nlight,1\n")
    code = cli.main(
        ["compare", "--system", f"light={EXAMPLES / 'light.txt'}", "--human", str(human), "--out", str(tmp_path / "o")]
    )
    assert code == 2 and "no score for input(s) [1, 2" in capsys.readouterr().err


def test_ranks_are_shared_when_the_tests_cannot_separate_systems():
    pairwise = pd.DataFrame(
        {
            "system_a": ["a", "a", "a", "b", "b", "c"],
            "system_b": ["b", "c", "d", "c", "d", "d"],
            "p_value": [0.01, 0.001, 0.0001, 0.13, 0.02, 0.04],
            "win_rate_p_value": [np.nan] * 6,
        }
    )
    # b and c: p = .13, one place; d is significantly harder than a, b and c
    assert shared_ranks(["a", "b", "c", "d"], pairwise) == [1, 2, 2, 4]
    # without the pool view the head-to-head test decides
    h2h = pairwise.assign(win_rate_p_value=pairwise["p_value"], p_value=np.nan)
    assert shared_ranks(["a", "b", "c", "d"], h2h) == [1, 2, 2, 4]
    assert shared_ranks(["a", "b"], pairwise.iloc[:1].assign(p_value=0.5)) == [1, 1]


def test_p_values_print_with_the_tests_resolution():
    assert format_p(1 / 10001) == "< 1e-4"
    assert format_p(0.0005) == "0.0005" and format_p(0.13) == "0.130" and format_p(float("nan")) == "-"
