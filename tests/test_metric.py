"""The evaluate metric end to end: loading offline, outputs, inputs, long texts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import evaluate
import numpy as np
import pytest
from offline import ASSERT_OFFLINE, offline_env
from scipy.stats import spearmanr

from arts_metric.data import load_history, load_pool_rows
from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.judges.simulated import SimulatedPointwiseJudge
from arts_metric.pool import pool_from_rows
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.scoring.api import score_texts

REPO = Path(__file__).resolve().parent.parent

PLAIN = "The dog ran to the park."
HARD = (
    "Notwithstanding any provision to the contrary, the lessee shall indemnify the lessor "
    "against all liabilities arising hereunder."
)


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(str(module_script_path()))


@pytest.mark.slow
@pytest.mark.parametrize("where", ["elsewhere", "repo root"])
def test_bare_name_loads_offline(tmp_path, where):
    """`arts register` then evaluate.load("arts") in a fresh interpreter with sockets
    cut, from a directory that is not the repository and from the repository root."""
    env = offline_env(tmp_path)
    cwd = tmp_path if where == "elsewhere" else REPO
    arts_bin = Path(sys.executable).parent / "arts"
    subprocess.run([str(arts_bin), "register", "--quiet"], check=True, env=env, cwd=cwd)
    code = ASSERT_OFFLINE + textwrap.dedent(
        f"""
        import json, evaluate
        m = evaluate.load("arts")
        out = m.compute(predictions=[{PLAIN!r}, {HARD!r}])
        print(json.dumps({{"arts": out["arts"], "fkgl": out["fkgl"], "mean": out["arts_mean"]}}))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["arts"][0] < out["arts"][1]
    assert all(0.0 <= a <= 1.0 for a in out["arts"])
    assert out["fkgl"][0] < out["fkgl"][1]


@pytest.mark.slow
def test_module_docstring_examples_run(tmp_path):
    """The module script's docstring examples run as doctests (as `evaluate` runs its own
    metrics'), in a fresh offline interpreter where `arts register` made "arts" loadable."""
    env = offline_env(tmp_path)
    subprocess.run(
        [str(Path(sys.executable).parent / "arts"), "register", "--quiet"], check=True, env=env, cwd=tmp_path
    )
    code = textwrap.dedent(
        """
        import doctest, importlib.util, json
        from arts_metric.evaluate_module.registry import module_script_path
        spec = importlib.util.spec_from_file_location("arts_module_script", module_script_path())
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        result = doctest.testmod(module)
        print(json.dumps({"attempted": result.attempted, "failed": result.failed}))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    examples = sum(line.lstrip().startswith(">>> ") for line in module_script_path().read_text().splitlines())
    assert examples >= 1 and out == {"attempted": examples, "failed": 0}, proc.stdout[-3000:]


def test_settings_are_checked_by_the_config(metric):
    with pytest.raises(ValueError, match="unknown argument\\(s\\) 'pools' for compute\\(\\);.* settings: pool, judge"):
        metric.compute(predictions=[PLAIN], pools="arts94")
    with pytest.raises(ValueError, match="long_texts must be one of 'mean', 'team', 'chunks', 'whole', got 'pages'"):
        metric.compute(predictions=[PLAIN], long_texts="pages")


def test_a_judge_and_pool_built_beforehand_serve_load_and_compute():
    ruler = [f"pool text {i}" for i in range(5)]
    judge = SimulatedPointwiseJudge([*ruler, PLAIN, HARD], [0, 1, 2, 3, 4, 0.5, 3.5], name="built-judge")
    pool = pool_from_rows([{"text": t, "elo": 1000.0 + 100.0 * i} for i, t in enumerate(ruler)], name="built-pool")
    loaded = evaluate.load(str(module_script_path()), judge=judge, pool=pool, formulas=[])
    assert loaded.defaults.judge == "learned"  # the settings hold specs; the built objects stay apart
    first = loaded.compute(predictions=[PLAIN, HARD])
    for out in (first, loaded.compute(predictions=[PLAIN, HARD], split_above=9)):
        assert (out["judge"], out["pool"]) == ("built-judge", "built-pool")
        assert 0.0 < out["arts"][0] < out["arts"][1] < 1.0
    other = SimulatedPointwiseJudge([*ruler, PLAIN], [0, 1, 2, 3, 4, 4.5], name="other-judge")
    out = loaded.compute(predictions=[PLAIN], judge=other, pool=pool)  # compute's own built judge wins
    assert out["judge"] == "other-judge" and out["pool"] == "built-pool"
    assert out["arts"][0] > first["arts"][0] + 0.5  # PLAIN is hardest of all to the other judge


def test_compute_outputs(metric):
    out = metric.compute(predictions=[PLAIN, HARD])
    for key in ("arts", "arts_elo", "arts_mean", "fkgl", "fre", "dale_chall", "units", "judge_calls"):
        assert key in out, key
    assert len(out["arts"]) == 2 and out["arts"][0] < out["arts"][1]
    assert out["arts_elo"][0] < out["arts_elo"][1]
    assert out["arts_mean"] == pytest.approx(np.mean(out["arts"]))
    assert out["fre"][0] > out["fre"][1]  # FRE: higher = easier
    assert out["judge"] == "learned" and out["pool"] == "arts3000" and out["placement"] == "exhaustive"
    # the learned judge plays every pool text: no sampling interval per text,
    # but the mean over texts has a (text-resampling) interval around it
    assert "arts_interval" not in out
    low, high = out["arts_mean_interval"]
    assert low <= out["arts_mean"] <= high


def test_extra_formulas(metric):
    names = ["coleman_liau", "ari", "gunning_fog", "smog", "spache", "linsear_write"]
    out = metric.compute(predictions=[PLAIN, HARD], formulas=["Flesch-Kincaid", *names])
    for name in ["fkgl", *names]:
        assert len(out[name]) == 2 and all(np.isfinite(out[name]))
    assert "dale_chall" not in out


def test_sources_give_delta(metric):
    out = metric.compute(predictions=[PLAIN, HARD], sources=[HARD, PLAIN])
    assert out["arts_delta"][0] > 0  # output easier than its source
    assert out["arts_delta"][1] < 0
    assert out["arts_delta"][0] == pytest.approx(out["source_arts"][0] - out["arts"][0])
    assert "source_fkgl" in out and out["arts_delta_mean"] == pytest.approx(np.mean(out["arts_delta"]))


def test_near_paraphrase_gets_the_close_pair_probability_and_delta_stays_the_difference(metric):
    source = "The committee postponed its decision until the auditors had reviewed the accounts."
    light = "The committee delayed its decision until the auditors had checked the accounts."
    out = metric.compute(predictions=[light, PLAIN], sources=[source, HARD])
    # arts_delta is always the difference of the two reported scores, near-paraphrase or not
    for i in range(2):
        assert out["arts_delta"][i] == pytest.approx(out["source_arts"][i] - out["arts"][i], abs=1e-12)
    # the learned judge's close-pair head reads both texts: P(output easier than its source)
    assert len(out["p_output_easier"]) == 2 and all(0.0 <= p <= 1.0 for p in out["p_output_easier"])
    assert out["p_output_easier"][1] > 0.5  # a plain sentence is easier than a legal one
    assert out["p_output_easier_mean"] == pytest.approx(np.mean(out["p_output_easier"]))


def test_human_scores_correlation_is_signed(metric):
    texts = [
        "I like cats.",
        "The bus is late today.",
        "Heavy rain made the river rise, so the town closed the bridge.",
        "The committee postponed its decision until the auditors had reviewed the accounts.",
        HARD,
    ]
    harder = [1, 2, 3, 4, 5]
    out = metric.compute(predictions=texts, human_scores=harder, human_higher_is="harder")
    corr = out["correlation"]
    assert set(corr) >= {"arts", "arts_elo", "fkgl", "fre", "dale_chall"}
    for key in ("pearson", "pearson_p", "spearman", "spearman_p", "kendall", "kendall_p"):
        assert key in corr["arts"]
    assert corr["arts"]["spearman"] > 0.5
    assert corr["fre"]["spearman"] > 0  # signed: FRE's ease direction is flipped
    flipped = metric.compute(predictions=texts, human_scores=[-h for h in harder], human_higher_is="simpler")
    assert flipped["correlation"]["arts"]["spearman"] == pytest.approx(corr["arts"]["spearman"])


@pytest.mark.parametrize(
    "predictions, match",
    [
        ([PLAIN, None], r"predictions\[1\] is None"),
        ([PLAIN, 3], r"predictions\[1\] is a int"),
        (["", PLAIN], r"predictions\[0\] is empty"),
        ([PLAIN, "   \n "], r"predictions\[1\] is empty"),
    ],
)
def test_bad_input_names_the_index(metric, predictions, match):
    with pytest.raises(ValueError, match=match):
        metric.compute(predictions=predictions)


def test_mismatched_lengths(metric):
    with pytest.raises(ValueError, match="sources has 1 items but predictions has 2"):
        metric.compute(predictions=[PLAIN, HARD], sources=[PLAIN])
    with pytest.raises(ValueError, match="human_scores has 3 items"):
        metric.compute(predictions=[PLAIN, HARD], human_scores=[1, 2, 3])
    with pytest.raises(ValueError, match=r"human_scores\[1\]"):
        metric.compute(predictions=[PLAIN, HARD], human_scores=[1, float("nan")])


def test_unknown_options_are_errors():
    with pytest.raises(ValueError, match="unknown judge"):
        score_texts([PLAIN], judge="nonsense")
    with pytest.raises(ValueError, match="formula"):
        score_texts([PLAIN], formulas=["not_a_formula"])
    with pytest.raises(ValueError, match="neither a built-in pool"):
        score_texts([PLAIN], pool="arts9999")


def test_overlong_text_warns_and_formulas_see_everything():
    sentence = "word " * 300  # one 1500-character "sentence": no boundary to split at
    with pytest.warns(UserWarning, match=r"predictions\[0\].*cut"):
        out = score_texts([sentence.strip() + "."], formulas=["fkgl"])
    assert np.isfinite(out["arts"][0])
    short = score_texts([("word " * 20).strip() + "."], formulas=["fkgl"])
    assert out["fkgl"][0] > short["fkgl"][0]  # FKGL of the whole 300-word sentence


def test_pools(data_dir):
    rows = [
        {"text": "I see a cat.", "elo": 1000.0},
        {"text": "We went to the shop for milk.", "elo": 1100.0},
        {"text": "The report examines regional employment trends.", "elo": 1300.0},
        {"text": HARD, "elo": 1450.0},
    ]
    for pool in ("arts300", "arts94", rows):
        out = score_texts([PLAIN, HARD], pool=pool, formulas=[])
        assert out["arts"][0] < out["arts"][1]
    import datasets

    out = score_texts([PLAIN, HARD], pool=datasets.Dataset.from_list(rows), formulas=[])
    assert 0.0 <= out["arts"][0] < out["arts"][1] <= 1.0
    unrated = [{"text": r["text"]} for r in rows]
    out = score_texts([PLAIN, HARD], pool=unrated, formulas=[])  # rated by the judge itself
    assert out["arts"][0] < out["arts"][1]
    with pytest.raises(ValueError, match="row 1 has no 'text'"):
        score_texts([PLAIN], pool=[{"text": "a b c"}, {"txt": "x"}])


@pytest.mark.slow
def test_long_documents_keep_their_order(data_dir):
    """Multi-paragraph documents made of ARTS94 texts of increasing human difficulty
    (read at run time) keep their order, and each rates as the mean of its sentences'
    ratings weighted by their words: between its easiest and its hardest sentence."""
    pool_rows = load_pool_rows("arts94", data_dir)
    human = ratings_from_history(94, load_history("arts94", "human", "majority", data_dir))
    order = np.argsort(human)
    groups = np.array_split(order, 8)  # octiles, easiest first
    docs = []
    for g in groups:
        paragraphs = [" ".join(pool_rows[i]["text"].strip() for i in g[j : j + 3]) for j in range(0, len(g), 3)]
        docs.append("\n\n".join(paragraphs))
    assert all(len(d) > 500 and d.count("\n\n") >= 2 for d in docs)  # multi-paragraph
    out = score_texts(docs, formulas=["fkgl"])
    assert all(u >= 5 for u in out["units"])
    # at most one adjacent swap among 8 documents
    assert spearmanr(out["arts"], range(8)).statistic >= 0.95
    assert spearmanr(out["arts_elo"], range(8)).statistic >= 0.95
    assert len(set(np.round(out["arts"], 4))) == 8 and max(out["arts"]) < 1.0
    # the same documents as chunks (the scoring of releases up to 0.1) keep their order too
    chunks = score_texts(docs, formulas=[], long_texts="chunks")
    assert spearmanr(chunks["arts"], range(8)).statistic >= 0.95
    from arts_metric.text.features import words
    from arts_metric.text.sentences import sentence_units

    for doc, elo, n_units in zip(docs, out["arts_elo"], out["units"]):
        units = sentence_units(doc)
        sentences = score_texts(units, formulas=[])["arts_elo"]
        assert len(sentences) == n_units
        w = [len(words(u)) for u in units]
        assert elo == pytest.approx(float(np.dot(sentences, w) / np.sum(w)), abs=1e-6)
        assert min(sentences) < elo < max(sentences)
