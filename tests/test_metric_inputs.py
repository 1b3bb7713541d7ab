"""ARTS inside a simplification evaluation, through the real ``evaluate``:
inputs streamed with add/add_batch, references, ``evaluate.combine`` with a module of
SARI's signature, and settings given to ``evaluate.load``."""

from __future__ import annotations

import evaluate
import pytest
from sari_signature import write_sari

from arts_metric.judges import Judge
from arts_metric.registry import module_script_path
from arts_metric.scoring import score_texts

SCRIPT = str(module_script_path())
SOURCES = [
    "The committee postponed its decision until the auditors had reviewed the accounts.",
    "Photosynthesis converts light energy into chemical energy stored in glucose molecules.",
    "Notwithstanding the foregoing, the lessee shall indemnify the lessor against all claims.",
]
PREDICTIONS = [
    "The committee waited for the auditors before it decided.",
    "Plants turn light into food.",
    "The tenant must pay the owner back for any claims.",
]
REFERENCES = [
    ["The committee waited until the auditors checked the accounts.", "The group delayed its decision."],
    ["Plants use light to make sugar."],
    ["The tenant pays the owner for all claims.", "The renter covers the landlord's losses."],
]


@pytest.fixture(scope="module")
def metric():
    return evaluate.load(SCRIPT)


@pytest.fixture(scope="module")
def direct():
    return score_texts(PREDICTIONS, sources=SOURCES, references=REFERENCES)


def _same_scores(out: dict, expected: dict) -> None:
    for key in ("arts", "source_arts", "arts_delta", "reference_arts", "fkgl", "source_fkgl"):
        assert out[key] == pytest.approx(expected[key]), key


def test_references_give_reference_arts(metric, direct):
    out = metric.compute(predictions=PREDICTIONS, sources=SOURCES, references=REFERENCES)
    _same_scores(out, direct)
    refs_alone = score_texts([r for refs in REFERENCES for r in refs], formulas=[])["arts"]
    assert out["reference_arts"] == pytest.approx([sum(refs_alone[:2]) / 2, refs_alone[2], sum(refs_alone[3:]) / 2])
    assert out["reference_arts_mean"] == pytest.approx(sum(out["reference_arts"]) / 3)
    assert "reference_arts" not in metric.compute(predictions=PREDICTIONS, formulas=[])
    # a plain string per prediction is one reference; predictions + references without sources
    one = metric.compute(predictions=PREDICTIONS, references=[refs[0] for refs in REFERENCES], formulas=[])
    assert one["reference_arts"] == pytest.approx([refs_alone[0], refs_alone[2], refs_alone[3]])
    with pytest.raises(ValueError, match=r"references\[1\] must be a non-empty list"):
        metric.compute(predictions=PREDICTIONS, references=[["a"], [], ["b"]])
    with pytest.raises(ValueError, match="references has 2 items but predictions has 3"):
        metric.compute(predictions=PREDICTIONS, references=REFERENCES[:2])


def test_streamed_inputs_give_the_same_result(metric, direct):
    """add_batch with sources used to fail ("Bad inputs ... ['sources']")."""
    for start in range(0, 3, 2):
        metric.add_batch(
            predictions=PREDICTIONS[start : start + 2],
            sources=SOURCES[start : start + 2],
            references=REFERENCES[start : start + 2],
        )
    _same_scores(metric.compute(), direct)
    for p, s, r in zip(PREDICTIONS, SOURCES, REFERENCES):
        metric.add(prediction=p, source=s, references=r)
    _same_scores(metric.compute(), direct)


@pytest.mark.slow
def test_sources_given_to_compute_after_streaming_predictions(metric, direct):
    """add_batch(predictions=P) then compute(sources=S) used to fail ("predictions has 0")."""
    metric.add_batch(predictions=PREDICTIONS[:1])
    metric.add_batch(predictions=PREDICTIONS[1:])
    _same_scores(metric.compute(sources=SOURCES, references=REFERENCES), direct)
    metric.add_batch(predictions=PREDICTIONS, sources=SOURCES)
    with pytest.raises(ValueError, match="sources were already added"):
        metric.compute(sources=SOURCES)
    assert metric.compute()["arts_delta"] == pytest.approx(direct["arts_delta"])  # still usable after the error


def test_stream_inputs_are_checked(metric):
    metric.add_batch(predictions=PREDICTIONS[:1], sources=SOURCES[:1])
    with pytest.raises(ValueError, match=r"inputs \['predictions'\] differ from those added before"):
        metric.add_batch(predictions=PREDICTIONS[1:])
    with pytest.raises(ValueError, match=r"predictions\[2\] is None"):  # indices count across batches
        metric.add_batch(predictions=[PREDICTIONS[1], None], sources=SOURCES[1:])
    with pytest.raises(ValueError, match="human_scores.*go to compute"):
        metric.add_batch(predictions=PREDICTIONS[1:], human_scores=[1, 2])
    assert len(metric.compute(formulas=[])["arts"]) == 1
    with pytest.raises(ValueError, match="predictions is missing"):
        metric.compute(sources=SOURCES)


def test_combine_with_a_sari_signature_module(tmp_path, metric, direct):
    """evaluate.combine([arts, sari]).compute(sources=, predictions=, references=) used to
    fail with "ARTS takes no references"."""
    sari = evaluate.load(str(write_sari(tmp_path)))
    both = evaluate.combine([metric, sari])
    out = both.compute(sources=SOURCES, predictions=PREDICTIONS, references=REFERENCES)
    assert 0.0 <= out["sari"] <= 100.0
    _same_scores(out, direct)
    for start in range(0, 3, 2):  # streamed through the combination
        both.add_batch(
            sources=SOURCES[start : start + 2],
            predictions=PREDICTIONS[start : start + 2],
            references=REFERENCES[start : start + 2],
        )
    streamed = both.compute()
    assert streamed["sari"] == pytest.approx(out["sari"])
    _same_scores(streamed, direct)


def test_config_name_selects_the_pool():
    """config_name used to be accepted and ignored."""
    m = evaluate.load(SCRIPT, "arts300")
    assert m.config_name == "arts300"
    out = m.compute(predictions=PREDICTIONS, formulas=[])
    assert out["pool"] == "arts300"
    assert out["arts"] == pytest.approx(score_texts(PREDICTIONS, pool="arts300", formulas=[])["arts"])
    assert m.compute(predictions=PREDICTIONS, pool="arts3000", formulas=[])["pool"] == "arts3000"
    with pytest.raises(
        ValueError, match="unknown configuration 'arts9' of 'arts'; valid: default, arts94, arts300, arts3000"
    ):
        evaluate.load(SCRIPT, "arts9")
    with pytest.raises(ValueError, match="configuration 'arts300' selects pool 'arts300', but pool='arts94'"):
        evaluate.load(SCRIPT, "arts300", pool="arts94")


def test_load_settings_become_the_defaults():
    """evaluate.load("arts", pool="arts94") used to score against ARTS3000 silently."""
    m = evaluate.load(SCRIPT, pool="arts94", formulas=["smog"], placement_options={"level": 0.9}, empty="score")
    assert m.config_name == "arts94"
    # the judge and pool were built when the module was loaded, and compute uses them
    assert isinstance(m._prepared.judge, Judge) and m._prepared.pool.name == "arts94"
    calls = m._prepared.judge.stats.calls
    out = m.compute(predictions=PREDICTIONS + [" "])
    assert m._prepared.judge.stats.calls > calls
    assert out["pool"] == "arts94" and "smog" in out and "fkgl" not in out and out["n_empty"] == 1
    assert out["arts"][:3] == pytest.approx(score_texts(PREDICTIONS, pool="arts94", formulas=[])["arts"])
    # compute() arguments override the load-time defaults
    over = m.compute(predictions=PREDICTIONS, pool="arts300", formulas=["fkgl"], judge="learned:v2", empty="error")
    assert over["pool"] == "arts300" and "fkgl" in over and "smog" not in over and over["judge"] == "learned:v2"
    with pytest.raises(ValueError, match=r"predictions\[3\] is empty"):
        m.compute(predictions=PREDICTIONS + [" "], empty="error")


def test_unknown_load_settings_list_the_valid_ones():
    with pytest.raises(
        ValueError,
        match="unknown setting\\(s\\) 'pools' for evaluate.load\\('arts'\\); valid settings: pool, judge, judge_options, formulas",
    ):
        evaluate.load(SCRIPT, pools="arts94")
    with pytest.raises(ValueError, match="long_texts must be one of 'sentences', 'chunks', 'whole', got 'pages'"):
        evaluate.load(SCRIPT, long_texts="pages")
    with pytest.raises(ValueError, match="placement_options has unknown option\\(s\\) 'budgett'"):
        evaluate.load(SCRIPT, placement_options={"budgett": 3})
    with pytest.raises(ValueError, match="budget must be a positive integer"):  # checked by the placement's dry run
        evaluate.load(SCRIPT, placement="adaptive", placement_options={"budget": 0})
