"""The scoring settings declared once: defaults, checks that name the setting and the
value, unknown settings, defaults plus overrides, and the same scores whichever
way the settings arrive."""

from __future__ import annotations

import pytest

from arts_metric.judges.simulated import SimulatedPointwiseJudge
from arts_metric.placement import METHODS
from arts_metric.pool import DEFAULT_POOL, pool_from_rows
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig
from arts_metric.scoring.scorer import Scorer, split_settings
from arts_metric.text.formulas import DEFAULT_FORMULAS
from arts_metric.text.sentences import DEFAULT_CHUNK_CHARS, DEFAULT_SPLIT_ABOVE

PLAIN = "The dog ran to the park."
HARD = "Notwithstanding any provision to the contrary, the lessee shall indemnify the lessor."


def test_defaults_come_from_the_modules_that_own_them():
    c = ScoringConfig()
    assert (c.pool, c.judge, c.formulas, c.placement) == (DEFAULT_POOL, "learned", DEFAULT_FORMULAS, None)
    assert (c.long_texts, c.chunk_chars, c.split_above, c.data_dir) == (
        "mean",
        DEFAULT_CHUNK_CHARS,
        DEFAULT_SPLIT_ABOVE,
        None,
    )
    assert c.judge_options == {} and c.placement_options == {}
    assert ScoringConfig.names() == (
        "pool",
        "judge",
        "judge_options",
        "formulas",
        "placement",
        "placement_options",
        "long_texts",
        "chunk_chars",
        "split_above",
        "data_dir",
        "language",
    )
    assert ScoringConfig.choices("placement") == METHODS and ScoringConfig.choices("long_texts") == (
        "mean",
        "team",
        "chunks",
        "whole",
    )
    assert ScoringConfig.choices("pool") is None
    doc = ScoringConfig.docstring()
    for name in ScoringConfig.names():
        assert f"    {name} (" in doc and ScoringConfig.help(name)


@pytest.mark.parametrize(
    "settings, message",
    [
        ({"chunk_chars": 0}, "chunk_chars must be a positive integer (characters), got 0"),
        ({"split_above": True}, "split_above must be a positive integer (characters), got True"),
        ({"split_above": 40.5}, "split_above must be a positive integer (characters), got 40.5"),
        ({"long_texts": "pages"}, "long_texts must be one of 'mean', 'team', 'chunks', 'whole', got 'pages'"),
        (
            {"placement": "random"},
            "placement must be one of 'exhaustive', 'elo', 'mle', 'adaptive' or None, got 'random'",
        ),
        ({"judge": ""}, "judge must be a judge spec string"),
        ({"judge": 3}, "judge must be a judge spec string .* got 3"),
        ({"judge_options": ["concurrency"]}, "judge_options must be None or a dict of judge options by name, got"),
        ({"placement_options": {"budgett": 3}}, "placement_options has unknown option(s) 'budgett'; known: .*budget"),
        ({"formulas": ["fkgl", "bogus"]}, "unknown readability formula 'bogus'"),
        ({"formulas": 3}, "formulas must be None, a comma-separated string or a list of formula names, got 3"),
        ({"pool": None}, "pool must be a built-in pool (arts94, arts300, arts3000), .* got None"),
        ({"data_dir": 3}, "data_dir must be None or a folder path, got 3"),
    ],
)
def test_bad_settings_name_the_setting_and_the_value(settings, message):
    pattern = message.replace("(", r"\(").replace(")", r"\)").replace(r".*", ".*")
    with pytest.raises(ValueError, match=pattern):
        ScoringConfig(**settings)
    with pytest.raises(ValueError, match=pattern):  # the same check wherever the settings arrive
        score_texts([PLAIN], **settings)


def test_unknown_settings_list_the_valid_ones():
    valid = "valid settings: pool, judge, judge_options, formulas, placement, placement_options, long_texts, chunk_chars, split_above, data_dir"
    with pytest.raises(ValueError, match=f"unknown setting\\(s\\) 'pools'; {valid}"):
        ScoringConfig.from_settings({"pools": "arts94"})
    with pytest.raises(ValueError, match="unknown setting\\(s\\) 'budget', 'formula'") as info:
        score_texts([PLAIN], formula=["fkgl"], budget=3)
    # an option of the placement (or the judge) given as a setting: the error says where it belongs
    assert str(info.value).endswith("; 'budget' is a placement option: pass placement_options={'budget': 3}")
    with pytest.raises(ValueError) as info:
        ScoringConfig.from_settings({"pools": "arts94"})
    assert "is a judge option" not in str(info.value) and "placement option" not in str(info.value)
    with pytest.raises(ValueError, match="unknown setting 'nope'"):
        ScoringConfig.help("nope")


def test_defaults_plus_overrides():
    base = ScoringConfig(pool="arts94", formulas="FKGL, smog", placement_options={"budget": 8})
    assert base.formulas == ("fkgl", "smog")
    derived = ScoringConfig.from_settings({"formulas": None}, base=base, long_texts="whole")
    assert (derived.pool, derived.formulas, derived.long_texts, derived.placement_options) == (
        "arts94",
        (),
        "whole",
        {"budget": 8},
    )
    assert base.formulas == ("fkgl", "smog") and base.long_texts == "mean"  # the base is left as it was
    assert ScoringConfig.from_settings(None, base=base) == base
    assert base.replace(formulas="none").formulas == () and base.replace(formulas=["fre", "Flesch"]).formulas == (
        "fre",
    )
    with pytest.raises(ValueError, match="chunk_chars must be"):
        base.replace(chunk_chars=-1)
    options = {"budget": 8}
    config = ScoringConfig(placement_options=options)
    options["budget"] = 99
    assert config.placement_options == {"budget": 8}  # a copy: the caller's dict is not shared


def test_same_scores_from_a_config_or_from_keyword_settings():
    by_kwargs = score_texts([PLAIN, HARD], pool="arts300", formulas=["fkgl"], long_texts="whole")
    config = ScoringConfig(pool="arts300", formulas=["fkgl"], long_texts="whole")
    assert score_texts([PLAIN, HARD], config=config) == by_kwargs
    assert by_kwargs["arts"][0] < by_kwargs["arts"][1] and by_kwargs["pool"] == "arts300"
    overridden = score_texts([PLAIN, HARD], config=config, formulas=[])  # keyword settings win over the config
    assert "fkgl" not in overridden and overridden["arts"] == by_kwargs["arts"]


RULER = [f"pool text {i}" for i in range(5)]


def _built_judge_and_pool():
    judge = SimulatedPointwiseJudge([*RULER, PLAIN, HARD], [0, 1, 2, 3, 4, 0.5, 3.5], name="built-judge")
    pool = pool_from_rows([{"text": t, "elo": 1000.0 + 100.0 * i} for i, t in enumerate(RULER)], name="built-pool")
    return judge, pool


@pytest.mark.parametrize("name", ["judge", "pool"])
def test_a_config_holds_settings_and_refuses_a_built_judge_or_pool(name):
    built = dict(zip(("judge", "pool"), _built_judge_and_pool()))[name]
    kind = type(built).__name__
    message = f"{name}: a ScoringConfig holds settings, not a built {kind} .*give it to the scoring function"
    with pytest.raises(ValueError, match=message):
        ScoringConfig(**{name: built})
    with pytest.raises(ValueError, match=message):
        ScoringConfig().replace(**{name: built})


def test_a_built_judge_and_pool_go_to_the_scorer_as_they_are():
    judge, pool = _built_judge_and_pool()
    base = ScoringConfig(formulas=[], long_texts="whole")
    config, built = split_settings({"judge": judge, "pool": pool, "split_above": 50}, base=base)
    assert built == {"judge": judge, "pool": pool}
    assert (config.judge, config.pool, config.split_above, config.long_texts) == ("learned", DEFAULT_POOL, 50, "whole")
    scorer = Scorer.prepare(config, **built)
    assert scorer.judge is judge and scorer.pool is pool and scorer.method == "exhaustive"
    out = score_texts([PLAIN, HARD], config=base, judge=judge, pool=pool)
    assert (out["judge"], out["pool"]) == ("built-judge", "built-pool")
    assert 0.0 < out["arts"][0] < out["arts"][1] < 1.0
    assert "judge:built-judge|pool:built-pool#" in out["arts_signature"]
