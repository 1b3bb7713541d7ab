"""RSRS on a tiny randomly initialised GPT-2 built here (no download), checked
against values worked out by hand from the model's logits."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast

from arts_metric.analysis.rsrs import RSRS, rsrs_from_wnll

VOCAB = {
    "[UNK]": 0,
    "<bos>": 1,
    "the": 2,
    "cat": 3,
    "sat": 4,
    "on": 5,
    "mat": 6,
    ".": 7,
    "un": 8,
    "##der": 9,
    "##stand": 10,
}


def make_tokenizer(with_bos: bool = True) -> PreTrainedTokenizerFast:
    """Word-level vocabulary plus WordPiece continuation pieces, so one word can need several tokens."""
    tok = Tokenizer(models.WordPiece(VOCAB, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    extra = {"bos_token": "<bos>"} if with_bos else {}
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", **extra)


def make_model(seed: int = 0) -> GPT2LMHeadModel:
    torch.manual_seed(seed)
    config = GPT2Config(
        vocab_size=len(VOCAB), n_positions=32, n_embd=16, n_layer=2, n_head=2, bos_token_id=1, eos_token_id=1
    )
    return GPT2LMHeadModel(config).eval()


@pytest.fixture(scope="module")
def tiny():
    return make_model(), make_tokenizer()


def probs(model, ids: list[int]) -> np.ndarray:
    """Softmax over the vocabulary at every position, float64."""
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0].double().numpy()
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def token_loss(p_row: np.ndarray, target: int, loss: str) -> float:
    """Eq. 2 (bce, over the whole vocabulary) or plain -log p."""
    nll = -math.log(p_row[target])
    if loss == "nll":
        return nll
    return nll - sum(math.log(1 - p_row[v]) for v in range(len(p_row)) if v != target)


def test_rsrs_from_wnll_by_hand():
    # ranks by ascending loss: 1.0 -> 1, 2.0 -> 2, 4.0 -> 3; the OOV word (4.0) weighs 3, not sqrt(3)
    assert rsrs_from_wnll([2.0, 1.0, 4.0], [False, False, True]) == pytest.approx((2 * math.sqrt(2) + 1 + 4 * 3) / 3)
    assert rsrs_from_wnll([5.0], [False]) == pytest.approx(5.0)
    with pytest.raises(ValueError, match="at least one"):
        rsrs_from_wnll([], [])


@pytest.mark.parametrize("loss", ["bce", "nll"])
def test_sentence_matches_hand_computation(tiny, loss):
    model, tok = tiny
    sentence = "the cat understand zebra."
    # <bos> the cat un ##der ##stand [UNK] .  -- 'understand' needs 3 tokens, 'zebra' is unknown
    ids = [1, 2, 3, 8, 9, 10, 0, 7]
    p = probs(model, ids)
    t = [token_loss(p[k - 1], ids[k], loss) for k in range(1, len(ids))]  # loss of token k given tokens < k
    wnll = [t[0], t[1], t[2] + t[3] + t[4], t[5], t[6]]  # the, cat, understand, zebra, .
    oov = [False, False, True, True, False]
    order = sorted(range(5), key=lambda w: wnll[w])
    expected = sum((rank if oov[w] else math.sqrt(rank)) * wnll[w] for rank, w in enumerate(order, start=1)) / 5

    got = RSRS(model, tok, loss=loss, progress=False).sentences([sentence])[0]
    assert len(got) == 1
    s = got[0]
    assert s.words == ("the", "cat", "understand", "zebra", ".")
    assert s.oov == tuple(oov)
    assert s.wnll == pytest.approx(wnll, rel=1e-9)
    assert s.rsrs == pytest.approx(expected, rel=1e-9)
    if loss == "bce":  # eq. 2's extra term is positive: bce > nll for every word
        nll = RSRS(model, tok, loss="nll", progress=False).sentences([sentence])[0][0]
        assert all(b > n for b, n in zip(s.wnll, nll.wnll))


def test_without_bos_first_word_is_not_scored(tiny):
    model, _ = tiny
    tok = make_tokenizer(with_bos=False)
    ids = [2, 4, 5, 6]  # the sat on mat
    p = probs(model, ids)
    wnll = [token_loss(p[k - 1], ids[k], "bce") for k in range(1, 4)]  # 'the' has no context: left out
    order = sorted(range(3), key=lambda w: wnll[w])
    expected = sum(math.sqrt(rank) * wnll[w] for rank, w in enumerate(order, start=1)) / 3
    s = RSRS(model, tok, progress=False).sentences(["the sat on mat"])[0][0]
    assert s.words == ("sat", "on", "mat") and s.rsrs == pytest.approx(expected, rel=1e-9)
    with pytest.raises(ValueError, match="no word of the sentence"):
        RSRS(model, tok, progress=False).score(["mat"])


def test_text_is_mean_of_sentences_and_batching_is_exact(tiny):
    model, tok = tiny
    texts = ["the cat sat on the mat. The mat sat.", "cat", "un mat on the cat understand."]
    one = RSRS(model, tok, batch_size=1, progress=False)
    many = RSRS(model, tok, batch_size=8, progress=False)
    details = one.sentences(texts)
    assert [len(d) for d in details] == [2, 1, 1]
    scores = many.score(texts)
    assert scores == pytest.approx([np.mean([s.rsrs for s in d]) for d in details], rel=1e-6)
    assert one.score(texts) == pytest.approx(
        scores, rel=1e-6
    )  # float32 noise only; padding in a batch changes nothing


def test_trained_model_finds_its_training_sentence_easier():
    """Higher = harder: after a few steps on one sentence the model is unsurprised by it."""
    model, tok = make_model(seed=1), make_tokenizer()
    seen, scrambled = "the cat sat on the mat.", "mat the on sat cat the."
    ids = torch.tensor([[1] + tok(seen, add_special_tokens=False)["input_ids"]])
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    model.train()
    for _ in range(60):
        opt.zero_grad()
        model(input_ids=ids, labels=ids).loss.backward()
        opt.step()
    a, b = RSRS(model, tok, progress=False).score([seen, scrambled])
    assert a < b


def test_loads_from_local_folder_offline(tiny, tmp_path, no_network):
    model, tok = tiny
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    texts = ["the cat sat.", "un mat understand zebra."]
    assert RSRS(tmp_path, progress=False).score(texts) == pytest.approx(
        RSRS(model, tok, progress=False).score(texts), rel=1e-9
    )
    with pytest.raises(OSError, match="offline"):
        RSRS("no-such-org/no-such-model", progress=False)


def test_bad_input(tiny):
    model, tok = tiny
    scorer = RSRS(model, tok, progress=False)
    with pytest.raises(ValueError, match="text 1 is empty"):
        scorer.score(["the cat.", "   "])
    with pytest.raises(ValueError, match="not one string"):
        scorer.score("the cat.")
    with pytest.raises(ValueError, match="text 0: a sentence has 41 tokens"):
        scorer.score([" ".join(["cat"] * 40)])
    with pytest.raises(ValueError, match="loss must be"):
        RSRS(model, tok, loss="mse")
    with pytest.raises(ValueError, match="tokenizer together"):
        RSRS(model)


def test_pickled_weights_are_refused(tiny, tmp_path, no_network):
    """A folder with only a pickled pytorch_model.bin is refused: torch.load is never run on it."""
    model, tok = tiny
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    (tmp_path / "model.safetensors").unlink()
    torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")
    with pytest.raises(OSError, match="safetensors"):
        RSRS(tmp_path, progress=False)
