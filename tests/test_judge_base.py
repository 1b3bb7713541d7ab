"""The judge interface's decision values: a judgment (even an invalid one) versus no answer."""

from __future__ import annotations

import copy
import pickle

import pytest

from arts_metric.judges import UNANSWERED, is_unanswered


def test_unanswered_is_one_falsy_singleton_that_is_not_a_number():
    assert pickle.loads(pickle.dumps(UNANSWERED)) is UNANSWERED
    assert copy.deepcopy(UNANSWERED) is UNANSWERED
    assert type(UNANSWERED)() is UNANSWERED
    assert not UNANSWERED and repr(UNANSWERED) == "UNANSWERED"
    assert is_unanswered(UNANSWERED)
    assert not is_unanswered(None) and not is_unanswered(0.0) and not is_unanswered(float("nan"))
    with pytest.raises(TypeError):  # code that forgets to handle it fails loudly
        float(UNANSWERED)
    with pytest.raises(TypeError):
        UNANSWERED > 0.5
