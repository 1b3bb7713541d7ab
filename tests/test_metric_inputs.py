"""ARTS inside a simplification evaluation, through the real ``evaluate``:
inputs streamed with add/add_batch, references, ``evaluate.combine`` with a module of
SARI's signature, and settings given to ``evaluate.load``."""

from __future__ import annotations

import sys
from pathlib import Path

import evaluate
import pytest
from sari_signature import write_sari

from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.judges import Judge
from arts_metric.scoring.api import score_texts

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
    # one example at a time: combine's add passes each module the names it declares (plural)
    for p, s, r in zip(PREDICTIONS, SOURCES, REFERENCES):
        both.add(predictions=p, sources=s, references=r)
    one_by_one = both.compute()
    assert one_by_one["sari"] == pytest.approx(out["sari"])
    _same_scores(one_by_one, direct)


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
    with pytest.raises(ValueError) as info:
        evaluate.load(SCRIPT, precision="int8", budget=30)
    message = str(info.value)
    assert message.startswith("unknown setting(s) 'budget', 'precision' for evaluate.load('arts'); valid settings:")
    assert "; 'precision' is a judge option: pass judge_options={'precision': 'int8'}" in message
    assert message.endswith("; 'budget' is a placement option: pass placement_options={'budget': 30}")
    with pytest.raises(ValueError, match="long_texts must be one of 'mean', 'team', 'chunks', 'whole', got 'pages'"):
        evaluate.load(SCRIPT, long_texts="pages")
    with pytest.raises(ValueError, match="placement_options has unknown option\\(s\\) 'budgett'"):
        evaluate.load(SCRIPT, placement_options={"budgett": 3})
    with pytest.raises(ValueError, match="budget must be a positive integer"):  # checked by the placement's dry run
        evaluate.load(SCRIPT, placement="adaptive", placement_options={"budget": 0})


def test_each_message_names_the_input_to_give(metric, direct):
    """add_batch(source=) used to say "['source'] go to compute()", compute(source=) listed
    the settings without the inputs, and inside evaluate.combine the per-example add needs
    the names the modules declare."""
    with pytest.raises(ValueError, match=r"^add_batch\(\) takes sources= \(a list\), not source=$"):
        metric.add_batch(predictions=PREDICTIONS, source=SOURCES)
    with pytest.raises(ValueError, match=r"^compute\(\) takes sources= \(a list\), not source=$"):
        metric.compute(predictions=PREDICTIONS, source=SOURCES)
    with pytest.raises(ValueError) as typo:
        metric.compute(predictions=PREDICTIONS, human_score=[1, 2, 3])
    assert str(typo.value).startswith(
        "unknown argument(s) 'human_score' for compute(); inputs: predictions, sources, references, human_scores, human_higher_is; settings: pool, judge"
    )
    assert len(metric) == 0  # nothing was stored by the refused calls
    # one example at a time, singular names on the module itself
    for p, s, r in zip(PREDICTIONS, SOURCES, REFERENCES):
        metric.add(prediction=p, source=s, reference=r)
    _same_scores(metric.compute(), direct)


class StandInPipeline:
    """A text2text pipeline as evaluate's Evaluator calls one: texts in, generated texts out."""

    task = "text2text-generation"

    def __call__(self, texts, **kwargs):
        return [{"generated_text": text.split(",")[0].rstrip(".") + "."} for text in texts]


@pytest.mark.slow
def test_the_corpus_configuration_bootstraps_in_evaluates_evaluator():
    """evaluate's Evaluator with strategy="bootstrap" used to fail ("operands could not be
    broadcast"): it bootstraps every key of the result, so every key must be one number.
    The Evaluator's own steps run here, except prepare_pipeline, which with transformers 5
    refuses any pipeline that is not a transformers object (it looks up TFPreTrainedModel)."""
    import datasets

    data = datasets.Dataset.from_dict(
        {
            "text": [s.replace(" ", ", ", 1) for s in SOURCES],
            "label": [refs[0] for refs in REFERENCES],  # one reference each: scipy stacks the inputs
        }
    )
    arts = evaluate.load(SCRIPT, "corpus", formulas=[])  # each key is bootstrapped: one key per formula costs
    task = evaluate.Text2TextGenerationEvaluator()
    metric_inputs, pipe_inputs = task.prepare_data(data=data, input_column="text", label_column="label")
    predictions, _ = task.call_pipeline(StandInPipeline(), pipe_inputs)
    metric_inputs.update(task.predictions_processor(predictions, None))
    out = task.compute_metric(
        task.prepare_metric(arts), metric_inputs, strategy="bootstrap", n_resamples=5, random_state=0
    )
    assert set(out) == {"arts_mean", "reference_arts_mean"}
    texts = metric_inputs["predictions"]
    full = score_texts(texts, references=metric_inputs["references"], formulas=["fkgl"])
    assert out["arts_mean"]["score"] == pytest.approx(full["arts_mean"])
    assert out["reference_arts_mean"]["score"] == pytest.approx(full["reference_arts_mean"])
    for key, value in out.items():
        low, high = value["confidence_interval"]
        assert low <= high and value["standard_error"] >= 0, key
    corpus = arts.compute(predictions=texts, formulas=["fkgl"])
    assert corpus == pytest.approx({"arts_mean": full["arts_mean"], "fkgl_mean": sum(full["fkgl"]) / len(texts)})
    # the same as a setting; compute() may turn it off again
    per_text = evaluate.load(SCRIPT, corpus_only=True).compute(predictions=texts, corpus_only=False, formulas=[])
    assert per_text["arts"] == pytest.approx(full["arts"])
    with pytest.raises(ValueError, match="configuration 'corpus' returns corpus-level values"):
        evaluate.load(SCRIPT, "corpus", corpus_only=False)


@pytest.mark.xfail(
    "is_locked" not in vars(evaluate.module.FileFreeLock),
    reason="this evaluate release's distributed rendez-vous (FileFreeLock) does not work with the installed filelock (4.x): "
    "process 1 never sees process 0's lock, whatever the module",
    strict=True,
)
def test_a_distributed_run_names_the_process_whose_inputs_differ(tmp_path):
    """Process 0 adds sources and process 1 does not: the error used to be
    "sources[5] is None"; it names the processes now. Two module instances of one
    experiment in two threads, as evaluate's distributed mode runs them in two processes."""
    from concurrent.futures import ThreadPoolExecutor

    def run(process_id, inputs, experiment):
        module = evaluate.load(
            SCRIPT,
            num_process=2,
            process_id=process_id,
            experiment_id=experiment,
            cache_dir=str(tmp_path),
            timeout=15,  # seconds a process waits for the others (evaluate's default, 100, is all an xfail costs)
        )
        module.add_batch(**inputs)
        return module.compute(formulas=[])

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, 0, {"predictions": PREDICTIONS[:2], "sources": SOURCES[:2]}, "differ")
        second = pool.submit(run, 1, {"predictions": PREDICTIONS[2:]}, "differ")
        assert second.result(timeout=300) is None  # only process 0 returns a result
        with pytest.raises(
            ValueError,
            match=r"^sources were added by process 0 but not by process 1 \(examples 2-2 of 3\): in a distributed "
            "run every process must add the same inputs$",
        ):
            first.result(timeout=300)
    with ThreadPoolExecutor(2) as pool:  # the same inputs everywhere: scored as one stream
        first = pool.submit(run, 0, {"predictions": PREDICTIONS[:2], "sources": SOURCES[:2]}, "same")
        second = pool.submit(run, 1, {"predictions": PREDICTIONS[2:], "sources": SOURCES[2:]}, "same")
        assert second.result(timeout=300) is None
        out = first.result(timeout=300)
    assert out["arts_delta"] == pytest.approx(score_texts(PREDICTIONS, sources=SOURCES, formulas=[])["arts_delta"])


def test_warnings_point_at_the_users_line(metric):
    """The formula warning used to name the module script's copy in evaluate's cache."""
    with pytest.warns(UserWarning, match="readability formulas are undefined on predictions\\[1\\]") as caught:
        line = sys._getframe().f_lineno + 1
        metric.compute(predictions=[PREDICTIONS[0], "!!!"], formulas=["fkgl"])
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)
    with pytest.warns(UserWarning, match="empty texts scored") as caught:
        line = sys._getframe().f_lineno + 1
        score_texts([PREDICTIONS[0], " "], empty="score", formulas=[])
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)


def test_judge_calls_and_judge_stats_calls_of_the_learned_judge(metric):
    """judge_calls counts the decisions that can cost (0 for the learned judge, which
    decides from per-text scores); judge_stats.calls counts the units the judge read.
    The metric card says so."""
    long_text = " ".join(SOURCES + PREDICTIONS + [r for refs in REFERENCES for r in refs])  # judged in sentences
    out = metric.compute(predictions=["The dog ran to the park.", long_text], formulas=[])
    assert out["judge_calls"] == 0
    assert out["units"][1] > 1 and out["judge_stats"]["calls"] == sum(out["units"])
    assert out["judge_report"] is None  # no requests to report
    card = " ".join((Path(SCRIPT).parents[2] / "metric_card.md").read_text(encoding="utf-8").split())
    assert "**0 for the learned judge**" in card and "why it is not 0 when `judge_calls` is" in card


def test_inside_combine_a_missing_sources_input_names_the_fix(tmp_path, metric, direct):
    """Inside evaluate.combine, add(prediction=, source=) and add() without sources used to
    fail with evaluate's bare KeyError: 'sources' (evaluate renames only prediction and reference)."""
    sari = evaluate.load(str(write_sari(tmp_path)))
    both = evaluate.combine([metric, sari])
    with pytest.raises(KeyError) as singular:
        both.add(prediction=PREDICTIONS[0], source=SOURCES[0], reference=REFERENCES[0])
    assert "give sources=... (sources=None without sources)" in str(singular.value)
    assert len(metric) == len(sari) == 0  # nothing was stored
    # the fix the message names: sources= by that name, next to the singular prediction= and reference=
    for p, s, r in zip(PREDICTIONS, SOURCES, REFERENCES):
        both.add(prediction=p, sources=s, reference=r)
    _same_scores(both.compute(), direct)
    # next to a metric without sources (ARTS alone here): sources=None, for add and add_batch
    alone = evaluate.combine([metric])
    with pytest.raises(KeyError, match="sources=None without sources"):
        alone.add_batch(predictions=PREDICTIONS, references=REFERENCES)
    alone.add(prediction=PREDICTIONS[0], reference=REFERENCES[0], sources=None)
    alone.add_batch(predictions=PREDICTIONS[1:], references=REFERENCES[1:], sources=None)
    out = alone.compute()
    assert out["arts"] == pytest.approx(direct["arts"]) and "source_arts" not in out
