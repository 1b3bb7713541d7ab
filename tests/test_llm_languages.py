"""LLM judges and the ``language`` setting: with a language other than English the
pairwise prompt names it (template ``arts_pairwise_language``), its answers are cached
apart from the English ones, and the judge's name and the signature say so; English
prompts, names, signatures and cache keys are those of before. Driven through the real
local OpenAI-protocol server of :mod:`llm_server`."""

from __future__ import annotations

import pytest
from llm_server import OWN_POOL, make_server  # noqa: F401  (fixture)

from arts_metric.judges import get_judge
from arts_metric.llm.prompts import load_template
from arts_metric.llm.strategies import PairwiseStrategy
from arts_metric.pool import load_pool
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig

#: The version of the paper's pairwise prompt (its file's SHA-256 prefix): pinned, so any
#: change of the English wording fails here.
ENGLISH_PROMPT = "arts_pairwise/v1:84c4b78a8e42"
FRENCH = ["Le chat dort sur le tapis.", "La jurisprudence constante subordonne la recevabilité du pourvoi."]
ENGLISH = ["The cat sleeps on the mat.", "Notwithstanding the foregoing, the lessee shall indemnify the lessor."]


def _pairwise_prompts(server) -> list[str]:
    return [prompt for _, prompt in server.request_log]


def test_the_language_prompt_is_the_papers_with_the_language_named():
    english, french = load_template("arts_pairwise"), load_template("arts_pairwise_language")
    assert english.version == ENGLISH_PROMPT
    assert french.placeholders == ("LANGUAGE", "TEXT_A", "TEXT_B") and not french.verbatim
    # Every sentence of the paper's prompt is there, in order; one sentence is added.
    added = " Both texts are written in {LANGUAGE}; judge how easy each one is to understand for a native reader"
    assert french.text.replace(added + " of that language.", "") == english.text
    assert PairwiseStrategy(language="en").messages("a", "b") == PairwiseStrategy().messages("a", "b")
    assert PairwiseStrategy(language="en").version == ENGLISH_PROMPT
    content = PairwiseStrategy(language="ru").messages("a", "b")[0]["content"]
    assert "written in Russian" in content and content.endswith("just one letter.\n")
    with pytest.raises(ValueError, match="language must be one of"):
        PairwiseStrategy(language="de")


def test_a_french_scoring_request_names_french_and_the_english_one_is_unchanged(make_server, tmp_path, monkeypatch):
    monkeypatch.setenv("ARTS_CACHE_DIR", str(tmp_path))
    pool = load_pool("readmepp_fr")
    server = make_server(pool.texts + FRENCH)
    french = score_texts(
        FRENCH,
        language="fr",
        judge=f"openai:m@{server.base_url}",
        judge_options={"progress": False},
        placement_options={"budget": 6},
    )
    prompts = _pairwise_prompts(server)
    assert prompts and server.stats["kind_pairwise"] == len(prompts) == french["judge_stats"]["requests"]
    assert all("Both texts are written in French;" in p for p in prompts)
    assert french["pool"] == "readmepp_fr" and french["judge"] == f"openai:m@{server.base_url}?language=fr"
    signature = french["arts_signature"]
    assert "|language:fr|" in signature and "prompt:arts_pairwise_language/v1:" in signature
    assert "kandel_moles" in french and all(0.0 <= a <= 1.0 for a in french["arts"])

    english_server = make_server(OWN_POOL + ENGLISH)
    english = score_texts(
        ENGLISH,
        pool=[{"text": t, "elo": 1000.0 + 60 * i} for i, t in enumerate(OWN_POOL)],
        judge=f"openai:m@{english_server.base_url}",
        judge_options={"progress": False},
        formulas=[],
    )
    tpl = load_template("arts_pairwise")
    prompts = _pairwise_prompts(english_server)
    assert prompts and "French" not in " ".join(prompts)
    for prompt in prompts:  # byte for byte the paper's prompt with the two texts
        a, b = (prompt.split("```")[i].strip() for i in (2, 4))
        assert prompt == tpl.render(TEXT_A=a, TEXT_B=b)
    assert english["judge"] == f"openai:m@{english_server.base_url}" and "language" not in english["arts_signature"]
    assert f"prompt:{ENGLISH_PROMPT}+" in english["arts_signature"]


def test_french_and_english_answers_are_never_mixed_in_the_cache(make_server, tmp_path):
    server = make_server(FRENCH)
    options = {"progress": False, "cache_dir": str(tmp_path)}
    french = get_judge(f"openai:m@{server.base_url}", language="fr", **options)
    english = get_judge(f"openai:m@{server.base_url}", **options)
    russian = get_judge(f"openai:m@{server.base_url}", language="ru", **options)
    pair = [tuple(FRENCH)]
    french.compare(pair)
    assert server.chat_requests == 1
    english.compare(pair)  # the same texts, another prompt: asked again, not read from the French answer
    russian.compare(pair)
    assert server.chat_requests == 3
    again = get_judge(f"openai:m@{server.base_url}", language="fr", **options)
    again.compare(pair)
    assert server.chat_requests == 3 and again.stats.cached == 1
    assert english.signature != french.signature != russian.signature
    assert french.describe()["prompt_version"].startswith("arts_pairwise_language/v1:")
    assert english.describe()["prompt_version"] == ENGLISH_PROMPT


def test_the_setting_reaches_the_llm_judge_and_an_explicit_option_wins():
    url = "http://127.0.0.1:9/v1"
    assert ScoringConfig(judge=f"openai:m@{url}", language="fr").make_judge().strategy.language == "fr"
    assert ScoringConfig(judge=f"openai:m@{url}").make_judge().strategy.language is None
    chosen = ScoringConfig(judge=f"openai:m@{url}", language="fr", judge_options={"language": "en"}).make_judge()
    assert chosen.strategy.language is None and chosen.name == f"openai:m@{url}"
    assert get_judge(f"openai:m@{url}?language=hi").name == f"openai:m@{url}?language=hi"
    with pytest.warns(UserWarning, match="only the pairwise prompt names the language"):
        ScoringConfig(judge=f"openai:m@{url}?strategy=pointwise", language="fr").make_judge()
    with pytest.raises(ValueError, match="language must be one of"):
        get_judge(f"openai:m@{url}", language="German")
