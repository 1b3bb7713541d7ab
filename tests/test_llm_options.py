"""LLM judge options declared once: their kind (transport or decision) drives the
run settings, the cache key's parameters, the judge's name and the operational
option list; the cache keys of existing entries do not change."""

from __future__ import annotations

import sqlite3
from dataclasses import fields

import pytest
from llm_server import make_server  # noqa: F401  (fixture)

from arts_metric.judges import get_judge
from arts_metric.llm.cache import CACHE_FILE, judgment_key
from arts_metric.llm.options import (
    DECISION,
    OPERATIONAL_OPTIONS,
    TRANSPORT,
    TRANSPORT_OPTIONS,
    LLMOptions,
    option_names,
)
from arts_metric.llm.runner import RunSettings
from arts_metric.llm.strategies import DEFAULT_MAX_TOKENS, STRATEGIES, messages_digest

URL = "http://127.0.0.1:9/v1"
A, B = "The cat sat on the mat.", "The lessee shall indemnify the lessor."
CEFR_EXAMPLES = [("One two.", "A1"), ("Three four five.", "B2")]

#: The hand-kept list a build used before the metadata existed (its LLM part).
OLD_OPERATIONAL = {
    "concurrency",
    "timeout",
    "max_retries",
    "max_reasks",
    "backoff_base",
    "backoff_max",
    "progress",
    "cache",
    "cache_dir",
    "retry_invalid",
    "max_requests",
    "max_cost",
    "price_in",
    "price_out",
}


def old_params(o: LLMOptions) -> dict:
    """The sampling parameters as the judge listed them explicitly before the metadata."""
    return {
        "temperature": o.temperature,
        "top_p": o.top_p,
        "seed": o.seed,
        "max_tokens": o.max_tokens or DEFAULT_MAX_TOKENS[o.strategy],
    }


def test_every_option_declares_its_kind_and_help():
    for f in fields(LLMOptions):
        assert f.metadata["kind"] in (TRANSPORT, DECISION), f.name
        assert f.metadata["help"].strip(), f.name
        if f.metadata["request"] or f.metadata["name"]:
            assert f.metadata["kind"] == DECISION, f.name  # only what shapes answers enters keys and names
        assert f.metadata["applies"] is None or set(f.metadata["applies"]) <= set(STRATEGIES), f.name
    assert set(option_names(TRANSPORT)) | set(option_names(DECISION)) == {f.name for f in fields(LLMOptions)}
    with pytest.raises(ValueError, match="kind must be"):
        option_names("other")


def test_operational_options_are_the_transport_fields():
    # The old list plus the hedging options added since: transport too.
    assert TRANSPORT_OPTIONS == OLD_OPERATIONAL | {"hedges", "hedge_percentile", "hedge_after"}
    assert OPERATIONAL_OPTIONS == OLD_OPERATIONAL | {
        "hedges",
        "hedge_percentile",
        "hedge_after",
        "base_url",
        "api_key",
    }


def test_run_settings_take_the_options_object():
    """RunSettings declares no option default of its own: the transport settings are the options'."""
    own = {f.name for f in fields(RunSettings)}
    assert "options" in own and not (own & (TRANSPORT_OPTIONS - {"progress"}))
    assert RunSettings.__dataclass_fields__["options"].default_factory is LLMOptions


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"strategy": "pointwise"},
        {"strategy": "ease_1to5", "style": "simple", "max_tokens": 100},
        {"strategy": "listwise"},
        {"temperature": 0.7, "top_p": 0.9, "seed": 3},
        {"temperature": None, "max_tokens": 5, "persona": "medical"},
        {"strategy": "cefr", "k": 1, "examples": CEFR_EXAMPLES, "seed": 0},
    ],
)
def test_cache_key_parameters_match_the_old_explicit_list(settings):
    judge = get_judge(f"openai:m@{URL}", **settings)
    assert judge.params == old_params(judge.options)
    messages = [{"role": "user", "content": "x"}]
    extra = {"prompt_sha": messages_digest(messages)}
    new = judge._key("s", "v1", (A, B), messages)
    assert new == judgment_key("m", "s", "v1", old_params(judge.options), (A, B), extra)


def test_transport_options_change_neither_name_nor_keys():
    base = get_judge(f"openai:m@{URL}?strategy=pointwise")
    busy = get_judge(
        f"openai:m@{URL}?strategy=pointwise",
        concurrency=2,
        timeout=5,
        max_retries=0,
        max_reasks=0,
        cache=False,
        retry_invalid=True,
        max_requests=10,
        progress=False,
        backoff_base=1,
        backoff_max=2,
    )
    assert (busy.name, busy.score_key, busy.params) == (base.name, base.score_key, base.params)
    assert get_judge(f"openai:m@{URL}?temperature=0.7").name == get_judge(f"openai:m@{URL}").name


@pytest.mark.parametrize(
    "query, name",
    [
        ("", ""),
        ("?persona=medical", "?strategy=pairwise_expert&persona=medical"),
        ("?both_orders=true", "?both_orders=true"),
        ("?strategy=pointwise&both_orders=true", "?strategy=pointwise"),  # both_orders applies to pairwise only
        ("?strategy=ease_1to5", "?strategy=ease_1to5&style=own_reasoning"),  # style: always named for ease_1to5
        ("?strategy=ease_1to5&style=simple", "?strategy=ease_1to5&style=simple"),
        ("?strategy=cefr", "?strategy=cefr&k=5"),  # k: always named for cefr
        ("?strategy=listwise&batch_size=10", "?strategy=listwise"),
        ("?temperature=0.5&invalid=coin_flip&rng_seed=3", ""),
        (
            "?strategy=pairwise_expert&persona=law&both_orders=1&concurrency=2",
            "?strategy=pairwise_expert&persona=law&both_orders=true",
        ),
    ],
)
def test_judge_names_are_unchanged(query, name):
    assert get_judge(f"openai:m@{URL}{query}").name == f"openai:m@{URL}{name}"


def test_cache_keys_of_existing_entries_are_unchanged(make_server, tmp_path):
    """The keys this package wrote before options carried metadata (recorded with the
    code of v0.1.0 for these texts and settings). A change here would orphan every
    judgment in users' caches."""
    pinned = {
        "pairwise": "65f06dbed438bdfc9af704bde50a80fe2a8a98ade26a84f96f6ead68e9073ed7",
        "persona": "48fb6bdaab48cdb821df83c243f522c8a9ac6c0792ff127ae0572b0753eceee8",
        "sampling": "09f67b84a76e0e342db9a6992809d9ac68f0b9cf982d950a28a162b79d079901",
        "both_orders_reversed": "89a97a7fee4cb0b3b5b33afb68cce45d94ab971fbe38542c425333000a20b376",
        "pointwise": "8a6c11f0f5f3d6239c5c58fad6e8e91969d0f0ce2aaed8bd8ca56fea9f470834",
        "ease_1to5": "818c00a4736b568cd240cabcb58318a2229d8d0b7d82b589d5826276844a7132",
        "listwise": "f86d5da6394affb2e2ba934ff9f7e5c0be48dfa9a5bd9ec755165df45e368412",
        "cefr": "539601f474ae8202d56f5c109780af4ad8e98d3f7ba7cc6b12d2f167c6bf0e32",
    }
    server = make_server([A, B])
    spec = f"openai:m@{server.base_url}"
    kw = dict(progress=False, max_reasks=0)
    runs = {
        "pairwise": lambda d: get_judge(spec, cache_dir=d, **kw).compare([(A, B)]),
        "persona": lambda d: get_judge(spec + "?persona=medical", cache_dir=d, **kw).compare([(A, B)]),
        "sampling": lambda d: get_judge(
            spec + "?temperature=0.7&seed=3&max_tokens=20&top_p=0.9", cache_dir=d, **kw
        ).compare([(A, B)]),
        "both_orders_reversed": lambda d: get_judge(spec + "?both_orders=true", cache_dir=d, **kw).compare([(A, B)]),
        "pointwise": lambda d: get_judge(spec + "?strategy=pointwise", cache_dir=d, **kw).score([A]),
        "ease_1to5": lambda d: get_judge(spec + "?strategy=ease_1to5&style=simple", cache_dir=d, **kw).score([A]),
        "listwise": lambda d: get_judge(spec + "?strategy=listwise", cache_dir=d, **kw).score([A, B]),
        "cefr": lambda d: get_judge(spec + "?strategy=cefr&k=1", examples=CEFR_EXAMPLES, cache_dir=d, **kw).score([A]),
    }
    for label, run in runs.items():
        folder = tmp_path / label
        run(str(folder))
        with sqlite3.connect(folder / CACHE_FILE) as conn:
            keys = {k for (k,) in conn.execute("SELECT key FROM judgments")}
        assert pinned[label] in keys, label
