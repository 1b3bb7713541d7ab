"""GPT-4's recorded pairwise runs on the built-in pools, as the LLM tests replay them."""

from __future__ import annotations

from arts_metric import data as arts_data
from arts_metric.judges import Judge, get_judge

GPT4 = "gpt-4-1106-preview"


def recorded_run(pool: str, data_dir, limit: int | None = None, *, by_text: bool = False, decided: bool = False):
    """The texts of built-in ``pool``, GPT-4's recorded pairwise run on it, and the run's
    first ``limit`` (default all) matches of distinct ordered pairs, in the run's order.

    ``by_text``: pairs are told apart by their stripped texts rather than their indices;
    ``decided``: only matches with a decision count."""
    texts = [r["text"] for r in arts_data.load_pool_rows(pool, data_dir)]
    history = arts_data.load_history(pool, GPT4, "pairwise-run1", data_dir)
    seen, matches = set(), []
    for m in history:
        key = (texts[m.a].strip(), texts[m.b].strip()) if by_text else (m.a, m.b)
        if key in seen or (decided and m.harder is None):
            continue
        seen.add(key)
        matches.append(m)
        if len(matches) == limit:
            break
    return texts, history, matches


def replay_judge(server, cache_dir, model: str = GPT4, **options) -> Judge:
    """The ``openai:`` judge of ``model`` asking the replay ``server`` (``tests/llm_server.py``),
    its judgments cached in ``cache_dir``, with ``options``; no progress bar unless asked."""
    return get_judge(f"openai:{model}@{server.base_url}", cache_dir=str(cache_dir), **{"progress": False, **options})
