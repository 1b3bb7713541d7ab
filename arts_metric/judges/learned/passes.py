"""The forward passes that encode a batch of texts: which texts share a pass, and which
passes are computed in one call.

A pass holds texts of one exact length (no padding) in a number of rows fixed by that
length and the device kind (:func:`encoder_passes`), so a text's values do not depend on
what it is encoded with; on the CPU the passes of one shape are computed stacked, in one
call, where that gives the same bits (:func:`pass_groups`).
"""

from __future__ import annotations

from typing import Sequence

#: Word pieces per encoder forward pass that :func:`_pass_rows` aims at on the CPU.
PASS_PIECES = 128
#: Per device kind: (word pieces per forward pass aimed at, most texts in a pass). A GPU
#: takes larger passes than suit a CPU's cache, but every pass of a length is filled with
#: copies up to its fixed size: at most 32 texts a pass keeps those copies at about 2x the
#: real word pieces of 2,048 sentences (256 texts a pass computed 18x; on an H100 the
#: encoder ran about twice as fast with 32, ``benchmarks/profile_gpu.py``).
PASS_SHAPES = {"cpu": (PASS_PIECES, 4), "cuda": (4096, 32)}


def _pass_rows(n_pieces: int, device: str = "cpu", precision: str = "fp32") -> int:
    """Texts per forward pass for texts of ``n_pieces`` word pieces: a function of the
    length and the device kind alone (1 to 4 on the CPU), so a text's forward pass has
    the same shape whatever it is scored with. In int8 one text, never filled with
    copies: its quantization scales belong to its own rows (:mod:`.int8`), so passes of
    one length are stacked into calls without them (:func:`pass_groups`)."""
    if precision == "int8":
        return 1
    pieces, most = PASS_SHAPES[device.split(":")[0]]
    return max(1, min(most, pieces // n_pieces))


def encoder_passes(
    lengths: Sequence[int], device: str = "cpu", precision: str = "fp32"
) -> list[tuple[int, list[int]]]:
    """The forward passes that encode texts of these word-piece ``lengths`` on ``device``
    in ``precision``: per pass, how many of its rows are real texts and the indices of all
    its rows (texts of one length; a short pass is filled with copies of its last text;
    in int8 one text per pass)."""
    by_length: dict[int, list[int]] = {}
    for i, length in enumerate(lengths):
        by_length.setdefault(int(length), []).append(i)
    passes = []
    for length in sorted(by_length):
        group, rows = by_length[length], _pass_rows(length, device, precision)
        for s in range(0, len(group), rows):
            chunk = group[s : s + rows]
            passes.append((len(chunk), chunk + [chunk[-1]] * (rows - len(chunk))))
    return passes


#: Per device kind: the most word pieces of stacked passes computed in one call
#: (:func:`pass_groups`; 0: every pass alone). On the CPU fewer, larger calls spend less of
#: each pass in Python between torch's kernels (1.19x for 1,000 ARTS3000 texts on 2 cores,
#: 1,024 as fast as 4,096); a GPU's matrix kernels depend on the matrix's size, so its
#: passes stay alone.
STACK_PIECES = {"cpu": 1024, "cuda": 0}
#: Passes of fewer word pieces stay alone: CPU matrix kernels take another path, with other
#: roundings, for matrices of fewer rows (under 16 on the machine this was measured on).
STACK_MIN_PIECES = 16


def stack_budget(device: str = "cpu", precision: str = "fp32") -> int:
    """The most word pieces :func:`pass_groups` stacks in one call on ``device`` in
    ``precision``: ``STACK_PIECES`` of the device kind (int8 runs on the CPU only)."""
    return STACK_PIECES[device.split(":")[0]]


def pass_groups(
    passes: Sequence[tuple[int, list[int]]], lengths: Sequence[int], budget: int
) -> list[list[tuple[int, list[int]]]]:
    """:func:`encoder_passes` cut into the groups computed in one call: consecutive passes of
    one shape (texts of one length, as many rows) of at least ``STACK_MIN_PIECES`` word
    pieces, stacked up to ``budget`` word pieces (:func:`stack_budget`; 0: every pass alone).

    Stacking gives each row the bits of its pass computed alone when the matrix kernels'
    sums along a row do not depend on how many rows there are, as with CPU kernels on one
    thread past their small-matrix path; the encoder checks it once per model
    (``encoder._stacking_exact``, in int8 on ONNX Runtime's kernels too) and otherwise
    computes every pass alone."""
    groups: list[list[tuple[int, list[int]]]] = []
    last_shape = None
    for one_pass in passes:
        shape = (len(one_pass[1]), int(lengths[one_pass[1][0]]))
        pieces = shape[0] * shape[1]
        if shape == last_shape and pieces >= STACK_MIN_PIECES and (len(groups[-1]) + 1) * pieces <= budget:
            groups[-1].append(one_pass)
        else:
            groups.append([one_pass])
            last_shape = shape
    return groups
