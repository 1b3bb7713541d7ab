"""The learned judges (learned-4 default, learned-1 to learned-3 selectable): offline loading, calibration,
ARTS94 agreement, shipped files, versions, the close-pair head."""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
import weakref
from pathlib import Path

import numpy as np
import pytest
from repo_scripts import load_script
from scipy.special import expit
from scipy.stats import spearmanr

from arts_metric import data as arts_data
from arts_metric.data import cochrane_halves, split_cochrane_reviews
from arts_metric.device import limit_threads
from arts_metric.judges import PointwiseJudge, get_judge, learned
from arts_metric.ratings.elo import ratings_from_history
from arts_metric.text.features import FEATURE_NAMES, text_features

REPO = Path(__file__).resolve().parent.parent
RESOURCES = REPO / "arts_metric" / "resources"
#: learned-3's Spearman with the ARTS94 human majority, each text read whole (benchmarks/results/learned_judge_accuracy.md).
V3_ARTS94_WHOLE = 0.8121

# Written for these tests (not from the ARTS data): plain -> hard.
PLAIN = [
    "The dog ran to the park.",
    "I like to eat apples.",
    "We had fun at the beach today.",
]
HARD = [
    "Notwithstanding the aforementioned jurisprudential considerations, the appellate tribunal "
    "reaffirmed the doctrine of stare decisis with respect to contractual indemnification.",
    "Mitochondrial oxidative phosphorylation couples electron transport through membrane-bound "
    "cytochrome complexes to ATP synthesis via a transmembrane proton-motive force.",
    "The epistemological ramifications of the proposed hermeneutic methodology, particularly its "
    "reliance on intersubjective verification, remain philosophically contentious.",
]


@pytest.fixture(scope="module")
def judge() -> learned.LearnedJudge:
    return learned.LearnedJudge()


def test_loads_offline_with_network_blocked(no_network):
    # Drop the per-process caches so that both MiniLM and the weights load under the block.
    learned.encoder._ENCODERS.clear()
    learned.model._MODELS.clear()
    j = get_judge("learned")
    assert isinstance(j, learned.LearnedJudge) and j.name == "learned"
    s = j.score(PLAIN[:1] + HARD[:1])
    assert np.all(np.isfinite(s)) and s[1] > s[0]
    # loaded once per process: a second judge reuses the same objects
    j2 = learned.LearnedJudge()
    assert j2.model is j.model and j2.encoder is j.encoder


def test_plain_sentences_score_below_technical_ones(judge):
    s = judge.score(PLAIN + HARD)
    plain, hard = s[: len(PLAIN)], s[len(PLAIN) :]
    assert plain.max() < hard.min(), (plain, hard)
    # scale: Elo points around 1200 (training ratings span about 1140-1260)
    assert 1050 < s.min() and s.max() < 1350
    assert np.all(judge.prob_harder(hard[:, None], plain[None, :]) > 0.9)


def test_prob_harder_is_a_calibrated_symmetric_probability(judge):
    s = judge.score(PLAIN + HARD)
    p = judge.prob_harder(s[:, None], s[None, :])
    assert np.all((p > 0) & (p < 1))
    np.testing.assert_allclose(p + p.T, 1.0, atol=1e-12)
    np.testing.assert_allclose(np.diag(p), 0.5)
    assert judge.prob_harder(1210.0, 1200.0) == pytest.approx(expit(10.0 / judge.temperature))
    decisions = judge.compare([(PLAIN[0], HARD[0]), (HARD[0], PLAIN[0])])
    assert decisions[0] + decisions[1] == pytest.approx(1.0) and decisions[0] < 0.5
    assert np.isnan(judge.prob_harder(np.nan, 1200.0))


def test_deterministic(judge):
    texts = PLAIN + HARD
    a = judge.score(texts)
    b = judge.score(texts)
    np.testing.assert_array_equal(a, b)
    d = judge.score([texts[0], texts[0]])
    assert d[0] == d[1]


@pytest.mark.slow
@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4"])
def test_a_score_does_not_depend_on_its_batch_bit_for_bit(version, data_dir):
    """Order, companions, batch size and duplicates change no bit of a text's score
    (padded batches used to move scores in the 7th digit)."""
    j = get_judge(f"learned:{version}")
    rows = arts_data.load_pool_rows("arts300", data_dir)
    # 80 texts: several share a word-piece count, more than one predict block of 64
    texts = PLAIN + HARD + [r["text"] for r in rows[:74]]
    together = j.score(texts)
    np.testing.assert_array_equal(j.score(texts[::-1])[::-1], together)
    for i in (0, 3, 6, 41, 79):
        np.testing.assert_array_equal(j.score([texts[i]]), together[i : i + 1])
    rng = np.random.default_rng(0)
    for _ in range(3):
        idx = rng.choice(len(texts), size=int(rng.integers(2, 30)), replace=True)
        np.testing.assert_array_equal(j.score([texts[i] for i in idx]), together[idx])


def test_predict_rows_do_not_depend_on_the_block(judge):
    rng = np.random.default_rng(1)
    x = judge.features(PLAIN + HARD)[rng.integers(0, 6, size=150)]
    x = x + rng.normal(0.0, 0.01, size=x.shape)  # 150 different rows
    whole = judge.model.predict(x)
    for i in (0, 63, 64, 149):
        np.testing.assert_array_equal(judge.model.predict(x[i : i + 1]), whole[i : i + 1])
    np.testing.assert_array_equal(judge.model.predict(x[50:130]), whole[50:130])


@pytest.mark.slow
def test_arts94_human_majority_spearman(judge, data_dir):
    rows = arts_data.load_pool_rows("arts94", data_dir)
    texts = [r["text"] for r in rows]
    human = ratings_from_history(len(rows), arts_data.load_history("arts94", "human", "majority", data_dir))
    pools = json.loads((RESOURCES / "pools" / "arts94.json").read_text())["judge_scores"]
    rho = {}
    for version in ("v1", "v2", "v3", "v4"):
        j = get_judge(f"learned:{version}")
        scores = j.score(texts)
        rho[version] = spearmanr(scores, human)[0]
        # the shipped ARTS94 judge scores are what the judge computes
        np.testing.assert_allclose(scores, pools[f"learned:{version}"], atol=0.01)
    # learned-1 (the default) reproduces its published figure; learned-2, better in
    # cross-validation on GPT-4's judgments, is not better with these humans (about .80)
    assert rho["v1"] == pytest.approx(0.8318, abs=5e-4), rho
    assert rho["v2"] >= 0.78, rho
    # learned-3 trades a little of it for reading words rather than length; learned-4 (the
    # default), which also read half the Cochrane reviews, stays near it
    assert rho["v3"] == pytest.approx(V3_ARTS94_WHOLE, abs=5e-4), rho
    assert rho["v4"] >= rho["v3"] - 0.02, rho
    assert learned.DEFAULT_VERSION == "v4"
    np.testing.assert_allclose(judge.score(texts), pools["learned"], atol=0.01)
    # both beat plain length in characters (about .72)
    assert min(rho.values()) > spearmanr([len(t) for t in texts], human)[0] + 0.05


@pytest.mark.parametrize("name", arts_data.BUILTIN_POOLS)
def test_shipped_pool_files_have_ids_ratings_and_no_text(name, data_dir):
    obj = json.loads((RESOURCES / "pools" / f"{name}.json").read_text(encoding="utf-8"))
    rows = arts_data.load_pool_rows(name, data_dir)
    assert set(obj) == {"name", "n", "ids", "elo", "reference", "judge_scores"}
    assert obj["name"] == name and obj["n"] == len(rows) == len(obj["ids"]) == len(obj["elo"])
    assert obj["ids"] == [r["id"] for r in rows]
    assert set(obj["judge_scores"]) == {"learned", "learned:v1", "learned:v2", "learned:v3", "learned:v4"}
    for scores in obj["judge_scores"].values():
        assert len(scores) == len(rows) and all(isinstance(v, float) for v in scores)
    # the default key holds the default version's scores; the versions differ
    assert obj["judge_scores"]["learned"] == obj["judge_scores"][f"learned:{learned.DEFAULT_VERSION}"]
    assert obj["judge_scores"]["learned:v1"] != obj["judge_scores"]["learned:v2"]
    assert obj["judge_scores"]["learned:v3"] not in (
        obj["judge_scores"]["learned:v1"],
        obj["judge_scores"]["learned:v2"],
    )
    assert obj["judge_scores"]["learned:v4"] != obj["judge_scores"]["learned:v3"]
    assert all(isinstance(v, float) for v in obj["elo"])

    # no text anywhere: every string value is at most as long as an id (the keys are the
    # fixed schema checked above, judge names in judge_scores); "reference" names a history file
    longest_id = max(len(i) for i in obj["ids"])
    strings: list[str] = []

    def walk(x, key=None):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif isinstance(x, str) and key != "reference":
            strings.append(x)

    walk(obj)
    assert max(len(s) for s in strings) <= longest_id
    ref = obj["reference"]
    assert (data_dir / "histories" / name / f"{ref}.jsonl").is_file()
    raw = (RESOURCES / "pools" / f"{name}.json").read_text(encoding="utf-8")
    assert not any(r["text"].strip() in raw for r in rows if len(r["text"].strip()) > 20)

    # the reference ratings are the Elo run of that history (K=16, start 1200, in order)
    judge_name, run = ref.split("/")
    elo = ratings_from_history(len(rows), arts_data.load_history(name, judge_name, run, data_dir))
    np.testing.assert_allclose(obj["elo"], elo, atol=1e-3)


@pytest.mark.parametrize("version", ["v1", "v2", "v3", "v4"])
def test_weight_files_are_plain_arrays(version):
    folder = RESOURCES / learned.VERSIONS[version]
    meta = json.loads((folder / "model.json").read_text(encoding="utf-8"))
    weights = folder / meta["weights_file"]
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == meta["weights_sha256"]
    if version == "v1":
        assert weights.suffix == ".npz" and meta["model_version"] == "learned-1"
        with np.load(weights, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    else:
        from safetensors.numpy import load_file

        assert weights.suffix == ".safetensors" and meta["model_version"] == f"learned-{version[1]}"
        arrays = load_file(str(weights))
        assert meta["inputs"]["encoder_layers"] and max(meta["inputs"]["encoder_layers"]) < 6
    head = meta["close_pair_head"]
    assert tuple(head["inputs"]) == learned.CLOSE_FEATURE_NAMES and len(head["coef"]) == len(head["inputs"])
    # the head beats the pointwise difference on held-out minimal pairs (grouped CV)
    head_cv = head["cv_minimal_pairs_accuracy"]
    assert head_cv[f"close-pair head C={head['C']:g}"] > head_cv["pointwise (score difference)"] + 0.03
    assert all(a.dtype == np.float32 for a in arrays.values())
    # a head, not a copy of the encoder (MiniLM's weights are 90 MB); learned-4 keeps 10,320 support rows
    assert sum(a.nbytes for a in arrays.values()) < 20e6
    assert tuple(meta["feature_names"]) == FEATURE_NAMES
    assert meta["temperature"] > 0
    assert meta["training"]["pools"] == ["arts300", "arts3000"]
    cv = meta["cv"]["results"][meta["cv"]["selected"]]
    length = next(m for k, m in meta["cv"]["results"].items() if k.startswith("ridge: length (log chars)"))
    assert cv["spearman_pooled"] > length["spearman_pooled"]


def test_v3_was_fitted_on_readmepp_train_and_chosen_on_val():
    """learned-3's record: README++ English train in its fit (files named with their digest),
    val only in its choice; its choice beats the length baseline on both criteria and stays
    within .05 of learned-1's grouped GPT-4 agreement."""
    meta = json.loads((RESOURCES / learned.VERSIONS["v3"] / "model.json").read_text(encoding="utf-8"))
    rpp = meta["training"]["readmepp"]
    assert set(rpp["files_sha256"]) == {"readmepp/en_train.jsonl", "readmepp/en_val.jsonl"}
    assert rpp["n_train"] > 2000 and "val" in rpp["files"] and "selection" in rpp["files"]
    results = meta["cv"]["results"]
    chosen = results[meta["cv"]["selected"]]
    assert chosen["criterion"] == max(m["criterion"] for k, m in results.items() if not k.startswith("ridge"))
    length = next(m for k, m in results.items() if k.startswith("ridge: length"))
    assert chosen["readmepp_val_spearman"] > length["readmepp_val_spearman"] + 0.1
    v1_grouped = json.loads((RESOURCES / learned.VERSIONS["v2"] / "model.json").read_text(encoding="utf-8"))
    v1 = next(m for k, m in v1_grouped["cv"]["results"].items() if k.startswith("learned-1 inputs"))
    assert chosen["spearman_pooled"] >= v1["spearman_pooled"] - 0.05
    assert meta["inputs"]["encoder_layers"] == [4]  # only MiniLM's first four layers run


def test_v4_was_fitted_on_half_the_cochrane_reviews_and_keeps_learned_3s_setting(dev_dir):
    """learned-4's record: learned-3's setting and rows plus the sentences of the even-numbered
    Cochrane reviews (the file named with its digest), the odd-numbered ones held out; out of
    fold it agrees with GPT-4 and README++ val within .01 of learned-3."""
    meta = json.loads((RESOURCES / learned.VERSIONS["v4"] / "model.json").read_text(encoding="utf-8"))
    v3 = json.loads((RESOURCES / learned.VERSIONS["v3"] / "model.json").read_text(encoding="utf-8"))
    cochrane = meta["training"]["cochrane"]
    halves = cochrane_halves(dev_dir)
    assert cochrane["file_sha256"] == hashlib.sha256((dev_dir / "cochrane_pls_val.jsonl").read_bytes()).hexdigest()
    assert cochrane["n_abstract_sentences"] == len(halves["train_abstract"])
    assert cochrane["n_summary_sentences"] == len(halves["train_summary"])
    assert meta["training"]["readmepp"] == v3["training"]["readmepp"]
    assert meta["inputs"] == v3["inputs"] and meta["model"]["alin"] == v3["model"]["alin"]
    assert meta["model"]["gamma"] == v3["model"]["gamma"]
    n_rows = v3["model"]["n_support"] + len(halves["train_abstract"]) + len(halves["train_summary"])
    assert meta["model"]["n_support"] == n_rows
    # the nudge: the largest that keeps GPT-4 and README++ val near the fit without Cochrane, on the
    # training half split again (the held-out half plays no part)
    choice, tolerance = cochrane["nudge_choice"], _training_script().NUDGE_TOLERANCE
    figures = {float(k): v for k, v in choice["figures"].items()}
    keys = ("gpt4_fold0_spearman", "readmepp_val_spearman")
    kept = [n for n in figures if n and all(figures[n][k] >= figures[0.0][k] - tolerance for k in keys)]
    assert choice["chosen"] == max(kept) and f"+ {choice['chosen']:g} Elo" in cochrane["target"]
    assert figures[choice["chosen"]]["cochrane_inner_same_length"] > figures[0.0]["cochrane_inner_same_length"] + 0.03
    results = meta["cv"]["results"]
    new, old = results[meta["cv"]["selected"]], results[f"learned-3: {v3['cv']['selected']}"]
    assert meta["cv"]["setting"] == v3["cv"]["selected"]
    assert old == v3["cv"]["results"][v3["cv"]["selected"]]
    for key in ("spearman_pooled", "readmepp_val_spearman"):
        assert new[key] >= old[key] - 0.01, key


@pytest.mark.slow
def test_v3_reads_words_beyond_length_on_readmepp_val(dev_dir):
    """On README++ English val (chosen on, never fitted), learned-3 knows more beyond a
    sentence's length than learned-1 (partial Spearman, log word count held fixed)."""
    from arts_metric.languages.readmepp import readmepp_rows
    from arts_metric.ratings.stats import partial_spearman
    from arts_metric.text.features import words

    rows = readmepp_rows("en", "val", dev_dir)
    texts, level = [r["sentence"] for r in rows], [r["rating"] for r in rows]
    logw = np.log([max(len(words(t)), 1) for t in texts])
    partial = {v: partial_spearman(get_judge(f"learned:{v}").score(texts), level, logw) for v in ("v1", "v3", "v4")}
    for v in ("v3", "v4"):
        assert partial[v] >= 0.60 and partial[v] >= partial["v1"] + 0.05, partial


def test_v2_beats_v1_in_grouped_cross_validation():
    """The selection figures the training script recorded: learned-2's choice against
    learned-1's inputs under the same grouped folds, on every CV measure."""
    meta = json.loads((RESOURCES / learned.VERSIONS["v2"] / "model.json").read_text(encoding="utf-8"))
    results = meta["cv"]["results"]
    v2 = results[meta["cv"]["selected"]]
    v1 = next(m for k, m in results.items() if k.startswith("learned-1 inputs"))
    for key in (
        "spearman_pooled",
        "spearman_arts300",
        "spearman_arts3000",
        "match_accuracy",
        "spearman_easier_half",
        "match_accuracy_easier_half",
    ):
        assert v2[key] > v1[key], key
    assert v2["match_nll"] < v1["match_nll"]


def test_versions_are_selectable(judge):
    v1, v2, v3, v4 = (get_judge(f"learned:v{k}") for k in (1, 2, 3, 4))
    assert (v1.name, v1.model.version) == ("learned:v1", "learned-1")
    assert (v2.name, v2.model.version) == ("learned:v2", "learned-2")
    assert (v3.name, v3.model.version) == ("learned:v3", "learned-3")
    assert (v4.name, v4.model.version) == ("learned:v4", "learned-4")
    assert judge.name == "learned" and judge.model is v4.model  # the default is learned-4
    assert v1.score_key == "learned:v1" and v2.score_key == "learned:v2" and judge.score_key == "learned"
    s1, s2, s3, s4 = (j.score(PLAIN + HARD) for j in (v1, v2, v3, v4))
    assert not np.allclose(s1, s2) and not np.allclose(s1, s3) and not np.allclose(s3, s4)
    for s in (s1, s2, s3, s4):  # each puts every plain sentence below every technical one
        assert s[: len(PLAIN)].max() < s[len(PLAIN) :].min(), s
    with pytest.raises(FileNotFoundError):
        get_judge("learned:v5")  # neither a shipped version nor a folder


def test_compare_close_is_pair_aware_and_keeps_placement_fast(judge):
    # placement's fast path needs compare() untouched
    assert type(judge).compare is PointwiseJudge.compare
    source = (
        "The committee, having deliberated extensively, ultimately acquiesced to the "
        "proposal notwithstanding considerable reservations."
    )
    output = "The committee talked for a long time and then agreed to the plan, but had doubts."
    split = (
        "The committee deliberated extensively. It ultimately acquiesced to the proposal. "
        "It had considerable reservations."
    )
    assert learned.word_overlap(source, source) == 1.0
    assert learned.word_overlap(source, split) >= judge.model.close_min_overlap
    assert learned.word_overlap(PLAIN[0], HARD[0]) < judge.model.close_min_overlap
    pairs = [(source, split), (split, source), (PLAIN[0], HARD[0]), (source, output)]
    p = judge.compare_close(pairs)
    assert p[0] + p[1] == pytest.approx(1.0) and p[0] > 0.5  # antisymmetric; the source is harder
    # a pair that is not close gets compare()'s answer
    assert p[2] == pytest.approx(judge.compare([(PLAIN[0], HARD[0])])[0])
    assert p[3] > 0.5
    # the head is used for close pairs: its answer differs from the pointwise one
    assert p[0] != pytest.approx(judge.compare([(source, split)])[0], abs=1e-6)
    assert judge.compare_close([]) == []
    with pytest.raises(ValueError, match="pairs"):
        judge.compare_close(("one text", "another"))
    with pytest.raises(ValueError, match="pair 1"):
        judge.compare_close([(source, split), ("only one",)])
    with pytest.raises(ValueError, match=r"texts\[0\] is empty"):
        judge.compare_close([(" ", split)])
    # learned-2 has its own head, also antisymmetric
    v2 = get_judge("learned:v2")
    q = v2.compare_close(pairs[:2])
    assert q[0] + q[1] == pytest.approx(1.0) and q[0] > 0.5


def test_layer_means_match_the_sentence_embedding_and_batches():
    texts = PLAIN + HARD
    last = learned.layer_means(texts, [6])
    emb = learned.embed_texts(texts)  # sentence-transformers' own padded encode
    np.testing.assert_allclose(last / np.linalg.norm(last, axis=1, keepdims=True), emb, atol=1e-5)
    ours = learned.sentence_embeddings(texts)
    np.testing.assert_allclose(ours, emb, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-6)
    both = learned.layer_means(texts, [3, 4])
    np.testing.assert_array_equal(both, learned.layer_means(texts[::-1], [3, 4])[::-1])
    np.testing.assert_array_equal(both[1:2], learned.layer_means(texts[1:2], [3, 4]))
    assert both.shape == (len(texts), 2 * learned.EMBED_DIM)
    with pytest.raises(ValueError, match="layers"):
        learned.layer_means(texts, [7])


def test_direct_layer_calls_equal_the_models_own_forward_bit_for_bit():
    import torch

    from arts_metric.judges.learned.encoder import hidden_states, load_encoder

    enc = load_encoder()
    model = enc[0].auto_model
    for text, rows in [(PLAIN[0], 1), (HARD[0], 4), ("Short.", 3)]:
        ids = torch.tensor([enc.tokenizer(text)["input_ids"]] * rows)
        with torch.inference_mode():
            ours = hidden_states(model, ids, 6)
            theirs = model(
                input_ids=ids,
                attention_mask=torch.ones_like(ids),
                token_type_ids=torch.zeros_like(ids),
                output_hidden_states=True,
            ).hidden_states
            assert len(ours) == len(theirs) == 7
            for mine, reference in zip(ours, theirs):
                assert torch.equal(mine, reference)
            assert [torch.equal(a, b) for a, b in zip(hidden_states(model, ids, 3), ours)] == [True] * 4


def test_the_shipped_minilm_runs_as_bare_torch_operations_and_another_attention_by_its_modules():
    """The encoder's passes run the layers as bare torch operations only where those equal
    the model's own modules bit for bit: the shipped MiniLM (scaled-dot-product attention)
    does; the same weights with transformers' eager attention (a matrix product and a
    softmax, other bits) do not, and run their own modules, so each equals its own forward."""
    import copy

    import torch

    from arts_metric.judges.learned import encoder

    model = encoder.load_encoder()[0].auto_model
    eager = copy.deepcopy(model)
    eager.config._attn_implementation = "eager"
    ids = torch.tensor([encoder.load_encoder().tokenizer(HARD[0])["input_ids"]] * 2)
    with torch.inference_mode():
        for m, bare in ((model, True), (eager, False)):
            ours = encoder.hidden_states(m, ids, 6)
            assert encoder._BERT_OPS_MATCH[m] is bare
            theirs = m(input_ids=ids, token_type_ids=torch.zeros_like(ids), output_hidden_states=True).hidden_states
            assert all(map(torch.equal, ours, theirs))
        # the two attentions differ in their bits, so the check above can tell them apart
        assert not torch.equal(encoder._bert_states(eager, ids, 6)[-1], encoder._module_states(eager, ids, 6)[-1])


def test_custom_weights_path_and_tampering(tmp_path, judge):
    copy = tmp_path / "weights"
    shutil.copytree(learned.default_weights_dir(), copy)
    j = get_judge(f"learned:{copy}")
    assert j.name == f"learned:{copy}"
    np.testing.assert_allclose(j.score(PLAIN[:2]), judge.score(PLAIN[:2]), atol=1e-9)
    with pytest.raises(FileNotFoundError, match="train_learned_judge"):
        get_judge(f"learned:{tmp_path / 'missing'}")
    weights = copy / json.loads((copy / "model.json").read_text())["weights_file"]
    blob = bytearray(weights.read_bytes())
    blob[-100] ^= 0xFF
    weights.write_bytes(bytes(blob))
    learned.model._MODELS.pop(str(copy.resolve()), None)
    with pytest.raises(ValueError, match="sha256"):
        get_judge(f"learned:{copy}")


def test_bad_input_and_long_texts(judge):
    with pytest.raises(ValueError, match=r"texts\[1\] is a int, not a string"):
        judge.score(["fine", 3])
    with pytest.raises(ValueError, match=r"texts\[1\] is empty"):
        judge.score(["fine", "   "])
    with pytest.raises(ValueError, match="single string"):
        judge.score("a single string")
    long_text = " ".join(HARD * 10)
    assert len(long_text) > judge.max_chars
    with pytest.warns(UserWarning, match="text 1 has"):
        s = judge.score([PLAIN[0], long_text])
    assert np.isfinite(s).all()
    digits = "1 2 3 4 5 6 7 8 9 " * 30  # under max_chars, but over 254 word pieces
    assert len(digits) < judge.max_chars
    with pytest.warns(UserWarning, match="text 2 has .* word pieces"):
        judge.score([PLAIN[0], PLAIN[1], digits])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        judge.score(PLAIN)  # short texts: no warning
    assert judge.score([]).shape == (0,)
    with pytest.raises(ValueError, match="unknown option"):
        get_judge("learned", temperature=3)
    # options given as text (a build's --rater 'learned progress=false') are converted by declared type
    from_text = get_judge("learned", progress="false")
    assert from_text.progress is False
    # batch_size is gone: forward passes have a shape fixed by each text's length
    with pytest.raises(ValueError, match="unknown option.*batch_size"):
        get_judge("learned", batch_size="8")


def test_features():
    f = text_features(PLAIN + HARD + ["123 456 !!"])
    assert f.shape == (7, len(FEATURE_NAMES)) and f.dtype == np.float32
    assert np.isfinite(f).all()
    col = {n: i for i, n in enumerate(FEATURE_NAMES)}
    # technical texts: longer, longer words, rarer words
    for name in ("log_chars", "mean_word_len", "syllables_per_word"):
        assert f[3:6, col[name]].min() > f[:3, col[name]].max(), name
    assert f[3:6, col["zipf_min"]].max() < f[:3, col["zipf_min"]].min()
    with pytest.raises(ValueError, match=r"texts\[2\] is a NoneType, not a string"):
        text_features(["a", "b", None])


def _training_script():
    return load_script("scripts/train_learned_judge.py")


def test_training_script_writes_what_the_judge_reads(tmp_path, data_dir):
    """Fit the script's model on 150 ARTS300 texts, write it, load it through the judge."""
    train = _training_script()
    rows = arts_data.load_pool_rows("arts300", data_dir)[:150]
    texts = [r["text"] for r in rows]
    x = np.hstack([learned.embed_texts(texts), text_features(texts)]).astype(np.float64)
    y = np.linspace(1150, 1250, len(texts))[np.argsort(np.argsort(x[:, learned.EMBED_DIM]))]
    std = train.Standardiser(x[:120])
    assert np.isinf(std.scale).sum() >= 1  # MiniLM's dead dimensions are dropped
    params = train.fit_kernel(std(x[:120]), y[:120], alin=3000.0, g=1.0, wf=2.0)
    expected = train.predict_kernel(params, std(x))
    train.write_weights(tmp_path, std, params, temperature=12.5, alin=3000.0)
    model = learned.LearnedModel.load(tmp_path)
    np.testing.assert_allclose(model.predict(x), expected, atol=1e-2)
    assert model.temperature == 12.5
    # the target here is a function of length: held-out texts are ranked by it
    assert spearmanr(expected[120:], y[120:])[0] > 0.8


@pytest.mark.slow
def test_training_script_writes_learned_2(tmp_path, data_dir):
    """learned-2's writer: layer inputs, safetensors, close-pair head, loaded through the judge."""
    train = _training_script()
    rows = arts_data.load_pool_rows("arts300", data_dir)[:150]
    texts = [r["text"] for r in rows]
    x = np.hstack([learned.layer_means(texts, [3, 4]), text_features(texts)]).astype(np.float64)
    nr = 2 * learned.EMBED_DIM
    y = np.linspace(1150, 1250, len(texts))[np.argsort(np.argsort(x[:, nr]))]
    std = train.Standardiser(x[:120])
    params = train.fit_kernel(std(x[:120]), y[:120], alin=3000.0, g=1.0, wf=2.0, n_repr=nr)
    expected = train.predict_kernel(params, std(x))
    coef = np.zeros(len(learned.CLOSE_FEATURE_NAMES))
    coef[0] = 1.0  # a head that just repeats the pointwise decision
    close = {"inputs": list(learned.CLOSE_FEATURE_NAMES), "coef": coef.tolist(), "min_overlap": 0.5}
    train.write_weights_v2(tmp_path, std, params, 12.5, 3000.0, (3, 4), close)
    model = learned.LearnedModel.load(tmp_path)
    assert model.layers == (3, 4) and model.version == "learned-2" and model.n_repr == nr
    np.testing.assert_allclose(model.predict(x), expected, atol=1e-2)
    assert spearmanr(expected[120:], y[120:])[0] > 0.8
    j = learned.LearnedJudge(tmp_path)
    np.testing.assert_allclose(j.score(texts[120:]), expected[120:], atol=1e-2)
    pair = [(texts[0], texts[0].replace(".", ", indeed."))]
    assert j.compare_close(pair) == pytest.approx(j.compare(pair))  # the head above is the pointwise rule


def test_a_weighted_row_counts_as_that_many_copies_in_the_kernel_fit():
    """learned-3 weighs each README++ sentence 2: the weighted fit equals the fit with those rows
    written twice (intercept included), and differs from the unweighted one."""
    train = _training_script()
    rng = np.random.default_rng(3)
    z = rng.normal(size=(40, 6))
    y = 1200 + 30 * z[:, 0] + rng.normal(0, 5, 40)
    w = np.r_[np.ones(30), np.full(10, 2.0)]
    weighted = train.fit_kernel(z, y, alin=100.0, g=1.0, wf=1.0, n_repr=3, sample_weight=w)
    copies = np.r_[np.arange(40), np.arange(30, 40)]
    doubled = train.fit_kernel(z[copies], y[copies], alin=100.0, g=1.0, wf=1.0, n_repr=3)
    plain = train.fit_kernel(z, y, alin=100.0, g=1.0, wf=1.0, n_repr=3)
    probe = rng.normal(size=(15, 6))
    np.testing.assert_allclose(train.predict_kernel(weighted, probe), train.predict_kernel(doubled, probe), atol=1e-6)
    assert weighted["intercept"] == pytest.approx(doubled["intercept"])
    assert not np.allclose(train.predict_kernel(weighted, probe), train.predict_kernel(plain, probe))


def test_the_training_script_names_a_version_it_does_not_know(capsys):
    train = _training_script()
    with pytest.raises(SystemExit) as stop:
        train.main(["--versions", "v3,v9"])
    assert stop.value.code == 2 and "--versions: give some of v1, v2, v3, v4, got 'v3,v9'" in capsys.readouterr().err


def test_near_duplicate_groups_and_minimal_pairs():
    train = _training_script()
    texts = [
        "The cat sat on the mat near the door.",
        "The cat sat on the mat by the door.",
        "Stock markets fell sharply after the announcement.",
        "A completely different sentence about rivers and mountains.",
    ]
    groups, candidates = train.near_duplicate_groups(texts)
    assert groups[0] == groups[1] and len(set(groups[1:])) == 3
    assert candidates.tolist() == [[0, 1]]
    mp = train.minimal_pairs(texts, ["simplified", "source", "source", "source"], candidates)
    assert mp.tolist() == [[1, 0]]  # (source, simplified)
    assert train.minimal_pairs(texts, ["source"] * 4, candidates).shape == (0, 2)


def test_temperature_fit_recovers_a_known_temperature():
    train = _training_script()
    rng = np.random.default_rng(0)
    d = rng.normal(0, 30, 20000)
    y = (rng.random(20000) < expit(d / 12.0)).astype(float)
    t, nll = train.fit_temperature(d, y)
    assert t == pytest.approx(12.0, rel=0.08)
    assert nll < np.log(2)


_FORKED_SCRIPT = """
import json, sys
import datasets
from arts_metric import data
from arts_metric.scoring.bulk import score_dataset
rows = data.load_pool_rows("arts300", sys.argv[1])[:40]
ds = datasets.Dataset.from_dict({"text": [r["text"] for r in rows]})
one = score_dataset(ds, "text", judge="learned", batch_size=40)  # the parent runs torch first
two = score_dataset(ds, "text", judge="learned", batch_size=7, num_proc=2)
print(json.dumps({k: list(d[c]) for k, d, c in [("one", one, "arts_elo"), ("two", two, "arts_elo"), ("a1", one, "arts"), ("a2", two, "arts")]}))
"""


@pytest.mark.slow
def test_worker_processes_after_the_parent_used_the_judge(data_dir):
    """``num_proc=2`` forks after the parent has run MiniLM multi-threaded; the children
    used to hang forever in OpenMP. Run in a subprocess so that a hang fails, not blocks."""
    import os
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", _FORKED_SCRIPT, str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the hung workers too
        proc.communicate()
        pytest.fail("score_dataset(num_proc=2) with the learned judge hung for 300 s")
    assert proc.returncode == 0, stderr[-2000:]
    out = json.loads(stdout.strip().splitlines()[-1])
    # children encode with fewer threads than the parent: the thread count never changes a score
    assert out["two"] == out["one"] and out["a2"] == out["a1"]


def test_gpu_passes_hold_at_most_32_texts_of_one_length_whatever_the_batch():
    """On a GPU a pass's size is a function of the text length alone (at most 32 texts and
    about 4,096 word pieces), so a batch of many lengths computes few copies."""
    lengths = [10] * 100 + [11] * 3 + [200] * 5
    passes = learned.encoder_passes(lengths, device="cuda")
    sizes = {lengths[rows[0]]: len(rows) for _, rows in passes}
    assert sizes == {10: 32, 11: 32, 200: 20}
    assert sum(real for real, _ in passes) == len(lengths)
    assert [real for real, rows in passes if lengths[rows[0]] == 10] == [32, 32, 32, 4]
    alone = learned.encoder_passes([10], device="cuda")
    assert alone == [(1, [0] * 32)]  # the same shape as in any batch


def test_passes_of_one_shape_are_stacked_up_to_1024_word_pieces_on_the_cpu_only():
    """Consecutive passes of one shape (texts of one length) of 16 word pieces or more are
    computed in one call of at most 1,024 word pieces on the CPU (in int8 too, one text a
    pass); on a GPU every pass runs alone."""
    lengths = [10] * 150 + [3] * 12 + [11] * 2 + [200] * 3
    passes = learned.encoder_passes(lengths)
    groups = learned.pass_groups(passes, lengths, learned.stack_budget("cpu", "fp32"))
    assert [p for g in groups for p in g] == passes  # the same passes, in order
    for group in groups:
        shapes = {(len(rows), lengths[rows[0]]) for _, rows in group}
        assert len(shapes) == 1
        rows, length = shapes.pop()
        assert len(group) * rows * length <= 1024 or len(group) == 1
        if rows * length < 16:
            assert len(group) == 1  # under the small-matrix size: alone
    assert _passes_per_call(groups, lengths) == {3: [1, 1, 1], 10: [25, 13], 11: [1], 200: [3]}  # 38 of 4 x 10
    passes = learned.encoder_passes(lengths, "cuda")
    assert all(len(g) == 1 for g in learned.pass_groups(passes, lengths, learned.stack_budget("cuda")))
    passes = learned.encoder_passes(lengths, "cpu", "int8")
    groups = learned.pass_groups(passes, lengths, learned.stack_budget("cpu", "int8"))
    assert _passes_per_call(groups, lengths) == {3: [1] * 12, 10: [1] * 150, 11: [1, 1], 200: [3]}  # 3 x 200 a call


def _passes_per_call(groups, lengths) -> dict[int, list[int]]:
    """Per text length, how many passes each of its calls computes."""
    calls: dict[int, list[int]] = {}
    for group in groups:
        calls.setdefault(lengths[group[0][1][0]], []).append(len(group))
    return calls


def test_stacked_passes_give_each_text_the_bits_of_its_pass_alone(monkeypatch):
    """Texts of one length fill many passes; computed stacked (when the probe finds stacking
    exact on this machine) each text keeps the bits it gets alone, and a model whose stacked
    passes differ from its passes alone runs every pass alone."""
    from arts_metric.judges.learned import encoder

    words = ["cat", "dog", "man", "car", "sun", "tree", "bird", "fish", "book", "door", "ship", "road"]
    texts = [f"The {a} saw a {b} today." for a in words for b in words[:6]]
    tok = learned.load_encoder("cpu").tokenizer
    assert len({len(ids) for ids in tok(texts)["input_ids"]}) == 1  # one length: 18 passes of 4
    model = learned.load_encoder("cpu")[0].auto_model
    with limit_threads(1):
        encoder._stacking_exact(model)  # its probe's stacked calls are not counted below
    calls = []
    real_states = encoder.hidden_states
    monkeypatch.setattr(encoder, "hidden_states", lambda m, ids, d: calls.append(len(ids)) or real_states(m, ids, d))
    together = learned.sentence_embeddings(texts, workers=2)
    if encoder._STACKING_EXACT[model]:
        assert max(calls) > 4  # passes of 4 texts were stacked
    for i in (0, 5, 40, len(texts) - 1):
        np.testing.assert_array_equal(learned.sentence_embeddings([texts[i]]), together[i : i + 1])

    # A model whose outputs depend on how many rows share a call: the probe says so.
    monkeypatch.setattr(encoder, "_STACKING_EXACT", weakref.WeakKeyDictionary())
    monkeypatch.setattr(
        encoder, "hidden_states", lambda m, ids, d: [h + 1e-3 * len(ids) for h in real_states(m, ids, d)]
    )
    calls.clear()
    assert encoder._stacking_exact(model) is False
    wrapped = encoder.hidden_states
    monkeypatch.setattr(encoder, "hidden_states", lambda m, ids, d: calls.append(len(ids)) or wrapped(m, ids, d))
    learned.sentence_embeddings(texts)
    assert calls and max(calls) == 4  # every pass alone


def test_cochrane_halves_train_on_even_reviews_and_hold_out_odd_ones_without_shared_sentences():
    reviews = [
        {"abstract": "We searched twelve databases. Mortality fell.", "plain_language_summary": "We looked hard."},
        {"abstract": "We searched twelve databases. Morbidity rose.", "plain_language_summary": "Fewer got ill."},
        {"abstract": "Quality was low.", "plain_language_summary": "We are unsure."},
    ]
    got = split_cochrane_reviews(reviews)
    assert got["train_abstract"] == ["We searched twelve databases.", "Mortality fell.", "Quality was low."]
    assert got["train_summary"] == ["We looked hard.", "We are unsure."]
    # the stock sentence the held-out review shares with a training one is left out
    assert got["held_abstract"] == ["Morbidity rose."] and got["held_summary"] == ["Fewer got ill."]
    assert got["held_reviews"] == [reviews[1]] and got["train_reviews"] == [reviews[0], reviews[2]]


def test_the_cochrane_halves_of_the_development_set_share_no_sentence():
    halves = cochrane_halves()
    assert len(halves["train_reviews"]) + len(halves["held_reviews"]) == 411
    trained = set(halves["train_abstract"]) | set(halves["train_summary"])
    held = set(halves["held_abstract"]) | set(halves["held_summary"])
    assert held and trained and not held & trained
