"""Texts without a word ("!", "42", "A", an empty text with empty="score") are put at the
hardest end of the scale (arts 1.0) without asking the judge, named in a warning and
counted, in ``compute``/``score_texts``, ``score_dataset`` and the system comparison."""

from __future__ import annotations

import re
import warnings

import pytest
from llm_server import _PAIR, OWN_POOL, make_server  # noqa: F401  (fixture)

from arts_metric import cli
from arts_metric.judges import get_judge
from arts_metric.pool import load_pool
from arts_metric.scoring.api import score_texts
from arts_metric.systems import compare_systems
from arts_metric.text.wordless import has_word, top_rating

WORDLESS = ["!", "...", "42", "A", "$%"]
WORDED = ["I am.", "Go!", "The cat sat."]
CAT = "The cat sat on the mat."
RATED_POOL = [{"text": t, "elo": 1000.0 + 60 * i} for i, t in enumerate(OWN_POOL)]


@pytest.mark.parametrize("text", [*WORDLESS, "", "  ", "I.", "U.S.", "x 2", "\U0001f600\U0001f44d", "3 + 4 = 7"])
def test_texts_without_a_word(text):
    assert not has_word(text)


@pytest.mark.parametrize("text", [*WORDED, CAT, "I'm", "x-ray", "Hi", "3rd", "caf\u0065\u0301", "\u0915\u093f"])
def test_texts_with_a_word(text):
    assert has_word(text)


def _scored(predictions, **settings):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = score_texts(predictions, **settings)
    return out, [str(w.message) for w in record if "without a word" in str(w.message)]


def test_wordless_texts_score_as_the_hardest_and_are_named():
    mixed = [WORDED[0], *WORDLESS[:2], WORDED[1], *WORDLESS[2:], WORDED[2]]
    out, messages = _scored(mixed, formulas=[])
    top = top_rating(load_pool("arts3000").ratings)
    positions = [mixed.index(t) for t in WORDLESS]
    assert positions == [1, 2, 4, 5, 6]
    assert messages == [
        "texts without a word (fewer than two letters in a row) scored as arts 1.0 (the hardest end of the scale) "
        "without asking the judge: predictions[1], predictions[2], predictions[4], predictions[5], predictions[6]"
    ]
    assert out["n_wordless"] == 5
    for i in positions:
        assert out["arts"][i] == 1.0 and out["arts_elo"][i] == pytest.approx(top) and out["units"][i] == 0
    # the texts with words are judged as usual, each as when scored alone, and stay below 1
    for t in WORDED:
        alone, named = _scored([t], formulas=[])
        assert named == [] and alone["n_wordless"] == 0
        assert out["arts"][mixed.index(t)] == pytest.approx(alone["arts"][0], abs=1e-6)
        assert alone["arts"][0] < 1.0
    # a function of the text alone: the same score in a batch of its own
    assert _scored(["!"], formulas=[])[0]["arts"] == [1.0]
    assert out["arts_mean"] == pytest.approx(sum(out["arts"]) / len(mixed))


def test_punctuation_never_looks_simpler_than_a_sentence():
    out, _ = _scored(["!", "A", CAT], formulas=[])
    assert out["arts"][2] < out["arts"][0] == out["arts"][1] == 1.0


def test_a_wordless_output_is_not_easier_than_its_source():
    out, messages = _scored(["!", CAT, "A"], sources=[CAT, "42", "..."], formulas=[])
    assert messages == [
        "texts without a word (fewer than two letters in a row) scored as arts 1.0 (the hardest end of the scale) "
        "without asking the judge: predictions[0], predictions[2]; sources[1], sources[2]"
    ]
    assert out["n_wordless"] == 2  # the predictions only
    assert out["arts_delta"][0] < 0 < out["arts_delta"][1] and out["arts_delta"][2] == 0.0
    assert out["p_output_easier"] == [0.0, 1.0, 0.5]


def test_empty_texts_follow_the_same_rule():
    with pytest.warns(UserWarning, match=r"^empty texts scored as arts 1\.0 .*: predictions\[1\]$"):
        out = score_texts([CAT, "  ", "!"], empty="score", formulas=[])
    assert out["arts"][1:] == [1.0, 1.0] and out["arts"][0] < 1.0
    assert out["n_empty"] == 1 and out["n_wordless"] == 1
    assert out["arts_elo"][1] == out["arts_elo"][2]
    assert out["judge_stats"]["calls"] == score_texts([CAT], formulas=[])["judge_stats"]["calls"]


def _llm(server, tmp_path, name):
    return get_judge(f"openai:m@{server.base_url}", cache_dir=str(tmp_path / name), progress=False)


def test_the_llm_judge_is_never_asked_about_a_wordless_text(make_server, tmp_path):
    settings = dict(pool=RATED_POOL, placement="mle", placement_options={"budget": 4}, formulas=[])
    worded = make_server(OWN_POOL + WORDED)
    baseline = score_texts(WORDED, judge=_llm(worded, tmp_path, "a"), **settings)
    assert worded.chat_requests > 0

    server = make_server(OWN_POOL + WORDED)
    with pytest.warns(UserWarning, match="without a word"):
        out = score_texts([*WORDLESS, *WORDED], judge=_llm(server, tmp_path, "b"), **settings)
    shown = {t.strip() for _, prompt in server.request_log for pair in _PAIR.findall(prompt) for t in pair}
    assert shown and all(has_word(t) for t in shown), sorted(t for t in shown if not has_word(t))
    assert server.chat_requests == worded.chat_requests == out["judge_stats"]["requests"]
    assert out["arts"][: len(WORDLESS)] == [1.0] * len(WORDLESS) and out["n_wordless"] == len(WORDLESS)
    assert out["arts"][len(WORDLESS) :] == pytest.approx(baseline["arts"])


def test_compare_systems_counts_them_and_plays_them_without_the_judge(make_server, tmp_path, capsys):
    outputs = {"good": ["The cat sat.", "I am here.", "We ate soup."], "bad": ["!", "A", "We ate lunch."]}
    server = make_server(OWN_POOL + outputs["good"] + outputs["bad"])
    with pytest.warns(UserWarning, match=r"outputs\['bad'\]\[0\], outputs\['bad'\]\[1\]"):
        res = compare_systems(
            outputs,
            judge=_llm(server, tmp_path, "c"),
            pool=RATED_POOL,
            placement="mle",
            placement_options={"budget": 4},
            formulas=None,
            n_resamples=50,
        )
    shown = {t.strip() for _, prompt in server.request_log for pair in _PAIR.findall(prompt) for t in pair}
    assert {"!", "A"}.isdisjoint(shown)  # neither view asked about them
    h2h = res.info["head_to_head"]
    assert h2h["asked"] == 1 and h2h["requests"] == 1 and h2h["wordless"] == 2 and h2h["decided"] == 3
    assert res.win_rates.loc["bad", "good"] > res.win_rates.loc["good", "bad"]
    board = res.leaderboard.set_index("system")
    assert board.loc["bad", "n_wordless"] == 2 and board.loc["good", "n_wordless"] == 0
    assert list(res.leaderboard["system"]) == ["good", "bad"]
    md = res.to_markdown().splitlines()
    assert "| without a word |" in md[0]
    assert re.search(r"\| bad \| 3 \| 2 \|", "\n".join(md)) and re.search(r"\| good \| 3 \| 0 \|", "\n".join(md))


def test_arts_compare_prints_the_count(tmp_path, capsys):
    files = {}
    for name, lines in {
        "plain": ["The dog ran.", "It is cold.", "We won."],
        "dots": ["...", "It is cold.", "7"],
    }.items():
        files[name] = tmp_path / f"{name}.txt"
        files[name].write_text("\n".join(lines) + "\n")
    argv = ["compare", "--system", f"plain={files['plain']}", "--system", f"dots={files['dots']}"]
    code = cli.main([*argv, "--formulas", "none", "--out", str(tmp_path / "o"), "--resamples", "20"])
    out, err = capsys.readouterr()
    assert code == 0
    assert re.search(r"^arts compare: warning: .*without a word", err, re.M), err  # one line, the CLI's words
    assert "| rank | system | n | without a word |" in out and re.search(r"\| dots \| 3 \| 2 \|", out)
    assert "Without a word: 2 outputs with fewer than two letters in a row" in out
    assert "2 with an output without a word, not asked" in err
    csv = (tmp_path / "o" / "leaderboard.csv").read_text().splitlines()
    assert csv[0].split(",")[:5] == ["rank", "system", "kind", "n", "n_wordless"]


def test_score_dataset_gives_the_rule_and_names_the_rows():
    from datasets import Dataset

    from arts_metric.scoring.bulk import score_dataset

    ds = Dataset.from_dict({"text": [CAT, "!", "42"]})
    with pytest.warns(UserWarning, match=r"without a word .*: row 1: column 'text'; row 2: column 'text'$"):
        out = score_dataset(ds)
    alone = score_texts([CAT], formulas=[])
    assert out["arts"] == [pytest.approx(alone["arts"][0], abs=1e-6), 1.0, 1.0]
    assert out["arts_elo"][1] == out["arts_elo"][2] == pytest.approx(top_rating(load_pool("arts3000").ratings))
    assert out["judge_calls"][1:] == [0, 0]


def test_the_space_shows_the_count(tmp_path, monkeypatch):
    from arts_metric.space_app import compare, score

    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ARTS_LLM_MODELS"):
        monkeypatch.delenv(name, raising=False)
    files = []
    for name, lines in {
        "plain": ["The dog ran.", "It is cold.", "We won."],
        "dots": ["...", "It is cold.", "7"],
    }.items():
        files.append(tmp_path / f"{name}.txt")
        files[-1].write_text("\n".join(lines) + "\n")
    board_md, _, _, board, _ = compare(
        None,
        [str(f) for f in files],
        "",
        "arts3000",
        ["pool", "head_to_head"],
        "learned",
        progress=lambda *a, **k: None,
    )
    assert board.set_index("system").loc["dots", "n_wordless"] == 2
    assert "Without a word: 2 outputs" in board_md and re.search(r"\| dots \| 3 \| 2 \|", board_md)
    _, _, summary, _, _ = score("The dog ran.\n!\nA", "arts3000", [], "learned", progress=lambda *a, **k: None)
    assert "2 without a word (fewer than two letters in a row): scored as arts 1.0" in summary
