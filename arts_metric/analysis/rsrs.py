"""RSRS: the Ranked Sentence Readability Score from a causal language model.

Martinc et al. (2021), as used by README++ (seed ``001``, section 4.2, eq. 1-2)::

    RSRS = sum_{i=1..S} sqrt(i)^alpha * WNLL(i) / S

per sentence, where the ``S`` words of the sentence are sorted by their word
negative log loss (WNLL) in ascending order, ``i`` is a word's rank in that
order, and ``alpha = 2`` for an out-of-vocabulary (OOV) word (weight ``i``)
and 1 otherwise (weight ``sqrt(i)``). Hard, surprising words get the largest
weights. A text's score is the mean RSRS of its sentences. **Higher = harder**
(less readable). The value depends on the model: compare texts scored with
the same model only.

Our choices where the paper leaves room:

* Words are the tokenizer's own pre-tokenised words (``word_ids()`` of a
  Hugging Face fast tokenizer: for GPT-2, ``" word"`` and each punctuation
  mark). A word is OOV when the tokenizer needs more than one token for it
  or maps it to the unknown token (Martinc et al.: words the LM's vocabulary
  lacks are split into subword pieces).
* ``loss="bce"`` (default) is eq. 2 literally: the binary cross-entropy
  between the one-hot next token and the model's distribution, summed over
  the whole vocabulary, ``-log p(w) - sum_{v != w} log(1 - p(v))``.
  ``loss="nll"`` keeps only ``-log p(w)`` (what README++'s own script
  computes). Both are in nats. A word split into several tokens gets the sum
  of its tokens' losses (chain rule: the loss of the whole word).
* The model reads the sentence after its BOS token when the tokenizer has
  one, so every word is predicted. Without a BOS token (or with
  ``prepend_bos=False``) the first token cannot be predicted: it is left out
  of its word, and a one-token first word is left out of the sentence (and
  of ``S``).
* Ties in WNLL keep sentence order when ranked.

Weights are loaded with ``local_files_only=True`` by default (offline): name
a local folder or a model already in the Hugging Face cache, or pass
``local_files_only=False`` to allow a download. Only safetensors weights are
loaded (a pickled ``pytorch_model.bin`` is refused, never unpickled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Sequence

import numpy as np

from arts_metric.text.sentences import split_sentences

Loss = Literal["bce", "nll"]
# Probabilities are capped just below 1 so that log(1 - p) stays finite in the bce loss.
_P_MAX = 1.0 - 1e-12


def rsrs_from_wnll(wnll: Sequence[float], oov: Sequence[bool]) -> float:
    """Eq. 1 for one sentence: ``sum_i w_i * WNLL_i / S`` with ``i`` the 1-based rank
    of the word in ascending WNLL order and ``w_i = sqrt(i)`` (``i`` for OOV words)."""
    losses = np.asarray(wnll, dtype=float)
    is_oov = np.asarray(oov, dtype=bool)
    if losses.ndim != 1 or losses.shape != is_oov.shape:
        raise ValueError(f"wnll and oov must be 1-D of the same length, got {losses.shape} and {is_oov.shape}")
    if losses.size == 0:
        raise ValueError("a sentence needs at least one scored word")
    ranks = np.empty(losses.size)
    ranks[np.argsort(losses, kind="stable")] = np.arange(1, losses.size + 1)
    weights = np.where(is_oov, ranks, np.sqrt(ranks))
    return float(np.sum(weights * losses) / losses.size)


@dataclass(frozen=True)
class SentenceRSRS:
    """One sentence's words (as they appear in the sentence), their WNLL (nats), OOV flags and RSRS."""

    sentence: str
    words: tuple[str, ...]
    wnll: tuple[float, ...]
    oov: tuple[bool, ...]
    rsrs: float


class RSRS:
    """Scores texts with a ``transformers`` causal LM (``AutoModelForCausalLM``).

    ``model`` is a local folder, a Hugging Face model name already in the
    cache, or a loaded model (then pass ``tokenizer`` too). ``tokenizer`` must
    be a fast tokenizer (it provides the token-to-word mapping).
    """

    def __init__(
        self,
        model: Any,
        tokenizer: Any = None,
        *,
        loss: Loss = "bce",
        prepend_bos: bool = True,
        device: str = "cpu",
        batch_size: int = 8,
        local_files_only: bool = True,
        progress: bool = True,
    ) -> None:
        import torch  # noqa: F401  (fail early with a clear ImportError)

        if loss not in ("bce", "nll"):
            raise ValueError(f"loss must be 'bce' or 'nll', got {loss!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer, got {batch_size!r}")
        if isinstance(model, (str, bytes)) or hasattr(model, "__fspath__"):
            model, tokenizer = self._load(str(model), tokenizer, local_files_only)
        elif tokenizer is None:
            raise ValueError("pass the tokenizer together with a loaded model")
        if not getattr(tokenizer, "is_fast", False):
            raise ValueError(
                f"RSRS needs a fast (Rust) tokenizer for the word mapping; got {type(tokenizer).__name__}"
            )
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.loss = loss
        self.device = device
        self.batch_size = batch_size
        self.progress = progress
        self.bos_id = tokenizer.bos_token_id if prepend_bos else None
        self.unk_id = tokenizer.unk_token_id
        config = getattr(model, "config", None)
        self.max_tokens = getattr(config, "max_position_embeddings", None) or getattr(config, "n_positions", None)
        pad = tokenizer.pad_token_id
        if pad is None:
            pad = tokenizer.eos_token_id if tokenizer.eos_token_id is not None else 0
        self.pad_id = int(pad)  # only fills padded positions, which the attention mask hides

    @staticmethod
    def _load(name: str, tokenizer: Any, local_files_only: bool) -> tuple[Any, Any]:
        from transformers import AutoModelForCausalLM, AutoTokenizer

        try:
            # safetensors only: a pickled pytorch_model.bin would be unpickled by torch.load.
            model = AutoModelForCausalLM.from_pretrained(name, local_files_only=local_files_only, use_safetensors=True)
            if tokenizer is None or isinstance(tokenizer, str):
                tokenizer = AutoTokenizer.from_pretrained(tokenizer or name, local_files_only=local_files_only)
        except OSError as exc:
            hint = " (offline: pass a local folder, or local_files_only=False to download)" if local_files_only else ""
            hint += " (weights must be in safetensors format; pickled .bin files are never loaded)"
            raise OSError(f"could not load causal LM {name!r}{hint}: {exc}") from exc
        return model, tokenizer

    def _encode(self, sentence: str) -> tuple[list[int], list[int | None], list[str]]:
        enc = self.tokenizer(sentence, add_special_tokens=False)
        ids = list(enc["input_ids"])
        word_ids = list(enc.word_ids())
        n_words = max((w for w in word_ids if w is not None), default=-1) + 1
        words = []
        for w in range(n_words):
            span = enc.word_to_chars(w)
            words.append(sentence[span.start : span.end].strip() if span is not None else "")
        if self.bos_id is not None:
            ids, word_ids = [int(self.bos_id)] + ids, [None] + word_ids
        return ids, word_ids, words

    def _token_losses(self, batch: list[list[int]]) -> list[np.ndarray]:
        """Loss (nats) of token ``t`` given tokens ``< t``, for ``t >= 1`` of every sequence."""
        import torch

        width = max(len(ids) for ids in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(batch), width), dtype=torch.long)
        for row, ids in enumerate(batch):  # right padding: causal positions stay exact
            input_ids[row, : len(ids)] = torch.tensor(ids)
            mask[row, : len(ids)] = 1
        with torch.no_grad():
            logits = self.model(input_ids=input_ids.to(self.device), attention_mask=mask.to(self.device)).logits
        out = []
        for row, ids in enumerate(batch):
            logp = torch.log_softmax(logits[row, : len(ids) - 1].double(), dim=-1)
            target = torch.tensor(ids[1:], device=logp.device)
            nll = -logp.gather(1, target[:, None])[:, 0]
            if self.loss == "bce":
                log1m = torch.log1p(-logp.exp().clamp(max=_P_MAX))
                nll = nll - (log1m.sum(dim=1) - log1m.gather(1, target[:, None])[:, 0])
            out.append(nll.cpu().numpy())
        return out

    def sentences(self, texts: Sequence[str]) -> list[list[SentenceRSRS]]:
        """Per text, the RSRS details of each of its sentences."""
        if isinstance(texts, str):
            raise ValueError("texts must be a list of strings, not one string")
        jobs: list[tuple[int, str, list[int], list[int | None], list[str]]] = []
        for i, text in enumerate(texts):
            if not isinstance(text, str) or not text.strip():
                raise ValueError(f"text {i} is empty or not a string: {text!r}")
            for sentence in split_sentences(text):
                ids, word_ids, words = self._encode(sentence)
                if self.max_tokens and len(ids) > self.max_tokens:
                    raise ValueError(
                        f"text {i}: a sentence has {len(ids)} tokens, more than the model's "
                        f"{self.max_tokens} positions: {sentence[:60]!r}..."
                    )
                jobs.append((i, sentence, ids, word_ids, words))
        results: list[list[SentenceRSRS]] = [[] for _ in texts]
        from tqdm.auto import tqdm

        for start in tqdm(range(0, len(jobs), self.batch_size), desc="RSRS", unit="batch", disable=not self.progress):
            chunk = jobs[start : start + self.batch_size]
            losses = self._token_losses([job[2] for job in chunk])
            for (i, sentence, ids, word_ids, words), token_loss in zip(chunk, losses):
                results[i].append(self._sentence(i, sentence, ids, word_ids, words, token_loss))
        return results

    def _sentence(
        self,
        i: int,
        sentence: str,
        ids: list[int],
        word_ids: list[int | None],
        words: list[str],
        token_loss: np.ndarray,
    ) -> SentenceRSRS:
        n_tokens = [0] * len(words)
        unknown = [False] * len(words)
        loss = [0.0] * len(words)
        scored = [False] * len(words)
        for t, w in enumerate(word_ids):
            if w is None:
                continue
            n_tokens[w] += 1
            unknown[w] |= self.unk_id is not None and ids[t] == self.unk_id
            if t >= 1:  # token 0 has no context to be predicted from
                loss[w] += float(token_loss[t - 1])
                scored[w] = True
        keep = [w for w in range(len(words)) if scored[w]]
        if not keep:
            raise ValueError(f"text {i}: no word of the sentence {sentence!r} can be scored (one token, no BOS)")
        oov = [n_tokens[w] > 1 or unknown[w] for w in keep]
        wnll = [loss[w] for w in keep]
        return SentenceRSRS(
            sentence=sentence,
            words=tuple(words[w] for w in keep),
            wnll=tuple(wnll),
            oov=tuple(oov),
            rsrs=rsrs_from_wnll(wnll, oov),
        )

    def score(self, texts: Sequence[str]) -> np.ndarray:
        """Mean sentence RSRS per text (higher = harder)."""
        return np.array([float(np.mean([s.rsrs for s in sents])) for sents in self.sentences(texts)])


def rsrs_scores(texts: Sequence[str], model: Any, tokenizer: Any = None, **kwargs: Any) -> np.ndarray:
    """Convenience: ``RSRS(model, tokenizer, **kwargs).score(texts)`` (higher = harder)."""
    return RSRS(model, tokenizer, **kwargs).score(texts)


__all__ = ["RSRS", "SentenceRSRS", "rsrs_from_wnll", "rsrs_scores"]
