"""``arts_signature`` names every setting that can change a score: changing any such
setting changes the signature, and a new setting must be either named or declared
score-neutral with a reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import fields

import pytest

from arts_metric import __version__
from arts_metric.judges.base import Judge
from arts_metric.judges.learned import LearnedJudge, default_weights_dir
from arts_metric.placement import METHODS, method_defaults
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer, resolve_placement, split_settings
from arts_metric.scoring.signature import DISPLAY_ONLY_OPTIONS, SCORE_NEUTRAL, arts_signature


class PairwiseStandIn(Judge):
    """A judge that must see both texts (placed adaptively by default); never asked here."""

    name = "pairwise-stand-in"

    def compare(self, pairs):
        raise AssertionError("the signature asks no judge")


PAIRWISE = PairwiseStandIn()

#: For each setting that changes scores: (settings it is read under, another value).
CHANGES_SCORES = {
    "judge": ({}, "learned:v2"),
    "pool": ({}, "arts94"),
    "placement": ({"judge": PAIRWISE}, "mle"),
    "placement_options": ({}, {"seed": 1}),
    "long_texts": ({}, "team"),
    "chunk_chars": ({"long_texts": "chunks"}, 200),
    "split_above": ({"long_texts": "team"}, 500),
    "language": ({}, "hi"),
}


def _signature(**settings) -> str:
    # The signature of the settings alone (no dry run: some option values below are not ones
    # a placement would accept, and the signature needs none of them to be).
    config, built = split_settings(settings)  # the pairwise stand-in is a built judge
    judge = built["judge"] if "judge" in built else config.make_judge()
    return arts_signature(config, judge, config.make_pool(judge), *resolve_placement(judge, config))


def test_every_setting_is_named_or_declared_score_neutral():
    names = {f.name for f in fields(ScoringConfig)}
    assert names == set(CHANGES_SCORES) | set(SCORE_NEUTRAL), (
        "a ScoringConfig setting is neither in the signature test nor declared score-neutral"
    )
    assert not set(CHANGES_SCORES) & set(SCORE_NEUTRAL)


@pytest.mark.parametrize("name", sorted(CHANGES_SCORES))
def test_a_setting_that_changes_scores_changes_the_signature(name):
    base, other = CHANGES_SCORES[name]
    assert _signature(**base) != _signature(**{**base, name: other})


@pytest.mark.parametrize("method", METHODS)
def test_every_placement_option_is_in_the_signature(method):
    judge = "learned" if method == "exhaustive" else PAIRWISE
    base = _signature(judge=judge, placement=method)
    for name, default in method_defaults(method).items():
        if name in DISPLAY_ONLY_OPTIONS:
            continue
        other = {int: 7, float: 0.37, str: "random", type(None): 5}[type(default)]
        if name == "opponents":
            other = "all" if default != "all" else "spread"
        if name == "slope":
            other = 2.0
        changed = _signature(judge=judge, placement=method, placement_options={name: other})
        assert changed != base, f"{method} option {name} is missing from the signature"
        assert f"{name}=" in changed


def test_display_only_settings_leave_it_alone():
    assert _signature() == _signature(formulas=["smog"]) == _signature(placement_options={"progress": False})


def test_the_result_carries_it_and_names_the_defaults():
    out = score_texts(["The cat sat on the mat."], formulas=[])
    sig = out["arts_signature"]
    assert sig == _signature() == Scorer.prepare().signature
    fields_ = dict(part.split(":", 1) for part in sig.split("|"))
    assert list(fields_) == ["arts", "judge", "pool", "placement", "units", "version"]
    assert fields_["judge"] == "learned-4" and fields_["pool"] == "arts3000"
    assert fields_["units"] == "mean(sentences,weights=words)" and fields_["version"] == __version__
    assert fields_["placement"].startswith("exhaustive(") and "seed=0" in fields_["placement"]


def test_weights_and_pools_of_ones_own_carry_a_digest(tmp_path):
    folder = tmp_path / "weights"
    shutil.copytree(default_weights_dir("v1"), folder)
    own = _signature(judge=f"learned:{folder}")
    assert "judge:learned-1#" in own
    on_gpu = LearnedJudge(device="cpu")
    on_gpu.device = "cuda"  # what device="cuda" or "auto" resolves to where torch sees a GPU (none here)
    assert on_gpu.signature == "learned-4@cuda"  # other kernels round differently
    rows = [{"text": f"text {i}", "elo": 1100.0 + 10 * i} for i in range(5)]
    custom = _signature(pool=rows)
    changed = _signature(pool=[{**r, "elo": r["elo"] + 1} for r in rows])
    assert "pool:custom#" in custom and custom != changed


@pytest.mark.slow
def test_arts_score_prints_it(tmp_path):
    path = tmp_path / "texts.txt"
    path.write_text("The cat sat on the mat.\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "arts_metric.cli", "score", str(path), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    json.loads(proc.stdout.splitlines()[0])  # stdout stays JSON lines
    assert f"signature: {_signature()}" in proc.stderr


def test_the_signature_the_docs_and_card_quote_is_the_default():
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    docs = [
        line
        for page in [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]
        for line in page.read_text(encoding="utf-8").splitlines()
        if line.startswith("arts:")
    ]
    assert docs == [_signature()]  # quoted once, in docs/scores.md
    card = (repo / "metric_card.md").read_text(encoding="utf-8")
    assert _signature().replace("|", "\\|") in card


def test_an_llm_judge_is_named_with_its_prompt_and_sampling_and_no_secret():
    from arts_metric.judges import get_judge

    judge = get_judge("openai:m@http://alice:PASSWORD@127.0.0.1:9/v1?temperature=0.5", api_key="KEY-SECRET")
    sig = judge.signature
    assert sig.startswith("openai:m@") and "+prompt:" in sig and "temperature=0.5" in sig
    assert "PASSWORD" not in sig and "KEY-SECRET" not in sig and "alice" not in sig
