"""A compact file for the 2048 n-tuple network (:mod:`mctslab.games.g2048_ntuple`): a 10-bit
code per non-zero weight from a per-table codebook, the zeros as a bit mask, all compressed by
LZMA.

The float32 network is 268 MB, but after TD(0) training most of its entries were never visited
and are exactly 0. Each table ``p`` keeps its zeros exact and replaces every non-zero weight
``x`` by the nearest of ``L = 1023`` levels, uniform after a logarithmic companding (the idea of
the μ-law of ITU-T G.711, with ``asinh`` in place of ``sign · log(1 + |x|)``)::

    c_k = s · sinh(u_0 + k · (u_1 − u_0) / (L − 1)),   k = 0 .. L − 1,
    u_0 = asinh(min x / s),   u_1 = asinh(max x / s)

so the levels span the table's own range, their spacing is about ``s · Δu`` near 0 and a
constant fraction ``Δu`` of the value for large ``|x|``: both the many small weights and the
few large ones (the late game's, worth most of the score) keep their precision. Measured on the
300,000-game network (docs/chance-and-mdp.md), 255 levels chosen by k-means or by quantiles of
the weights put almost no level in the long tails and lose two thirds or nearly all of the
greedy player's score; 255 levels of this grid lose a seventh, 1023 nothing measurable. The
scale ``s`` is the power of two in :data:`SCALES` of the least squared error over the table's
non-zero weights.

The file is an ``.npz`` (NumPy's zip of ``.npy`` arrays, stored, not deflated) compressed as one
``.xz`` stream, so ``xz -d`` gives an ordinary ``.npz``. It holds ``levels`` (float32
``[tables, L + 1]``, column 0 the exact 0), ``mask`` (``np.packbits`` of the non-zero entries of
the flattened ``[tables, 16^6]`` weights) and ``codes`` (uint16, ``1..L``, the level of each
non-zero entry in order). Decoding gives back the float32 tables the kernels read.
"""

from __future__ import annotations

import io
import lzma
import os
import zipfile
from pathlib import Path

import numpy as np
from numba import njit

from mctslab.errors import MctslabError

#: the non-zero levels of each table's codebook (code 0 is the exact 0)
LEVELS = 1023
#: the companding scales tried for each table: 1/4 ... 1024
SCALES = tuple(2.0**e for e in range(-2, 11))
#: the first bytes of an ``.xz`` stream (how :func:`is_packed` tells a packed file)
XZ_MAGIC = b"\xfd7zXZ\x00"
#: the number of bits set in each byte
_POPCOUNT = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def codebook(values: np.ndarray, scale: float) -> np.ndarray:
    """The :data:`LEVELS` levels ``c_k`` (module docstring) for the non-zero ``values`` at
    companding scale ``scale``, increasing, float32 (as the file stores them)."""
    lo, hi = np.arcsinh(values.min() / scale), np.arcsinh(values.max() / scale)
    return (scale * np.sinh(np.linspace(lo, hi, LEVELS))).astype(np.float32)


def nearest(levels: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The index of the level nearest each value (ties to the lower), for increasing
    ``levels``: the midpoints between neighbours are the decision boundaries."""
    lv = levels.astype(np.float64)
    return np.searchsorted((lv[1:] + lv[:-1]) / 2, values, side="left")


def encode_table(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One table's codebook (``[L + 1]`` float32, entry 0 the exact 0) and its entries' codes
    (uint16 ``[table.size]``, 0 where the weight is 0), the scale of least squared error."""
    values = table[table != 0].astype(np.float64)
    codes = np.zeros(table.size, dtype=np.uint16)
    levels = np.zeros(LEVELS + 1, dtype=np.float32)
    if values.size == 0:
        return levels, codes
    best = None
    for s in SCALES:
        lv = codebook(values, s)
        k = nearest(lv, values)
        err = float(np.sum((lv[k].astype(np.float64) - values) ** 2))
        if best is None or err < best[0]:
            best = (err, lv, k)
    _, lv, k = best
    levels[1:] = lv
    codes[table.ravel() != 0] = k + 1
    return levels, codes


def write(w: np.ndarray, path: str | Path) -> None:
    """Write the float32 tables ``w`` (``[tables, size]``) as a packed file, atomically."""
    tables = [encode_table(t) for t in w]
    levels = np.stack([lv for lv, _ in tables])
    codes = np.stack([c for _, c in tables]).ravel()
    mask = codes != 0
    buf = io.BytesIO()
    np.savez(buf, levels=levels, mask=np.packbits(mask), codes=codes[mask])
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(lzma.compress(buf.getvalue(), preset=9))
    os.replace(tmp, p)


def is_packed(path: str | Path) -> bool:
    """Whether ``path`` starts like a packed file (an ``.xz`` stream)."""
    with open(path, "rb") as f:
        return f.read(len(XZ_MAGIC)) == XZ_MAGIC


def read(path: str | Path, shape: tuple[int, int]) -> np.ndarray:
    """The float32 tables of ``shape`` decoded from the packed file ``path``; a file that is
    cut short, corrupt or of another shape is a :class:`MctslabError`."""
    try:
        raw = lzma.decompress(Path(path).read_bytes())
        with np.load(io.BytesIO(raw), allow_pickle=False) as z:
            levels, mask, codes = z["levels"], z["mask"], z["codes"]
    except (OSError, ValueError, EOFError, KeyError, lzma.LZMAError, zipfile.BadZipFile) as e:
        raise MctslabError(f"{path} is not a readable packed network ({e})") from e
    tables, size = shape
    n = tables * size
    if (
        levels.shape != (tables, LEVELS + 1)
        or levels.dtype != np.float32
        or mask.shape != ((n + 7) // 8,)
        or codes.dtype != np.uint16
        or (codes.size and codes.max() > LEVELS)
    ):
        raise MctslabError(f"{path} is a packed network of another shape than {shape}")
    if int(_POPCOUNT[mask].sum()) != codes.size or (n % 8 and mask[-1] & (0xFF >> n % 8)):
        raise MctslabError(f"{path} is a packed network whose codes do not match its mask")
    w = np.empty(shape, dtype=np.float32)
    decode(levels, mask, codes, w)
    return w


@njit(cache=True)
def decode(levels, mask, codes, w):
    """Fill ``w`` (``[tables, size]``): entry ``i`` of the flattened tables is 0 where bit ``i``
    of ``mask`` (most significant first, as ``np.packbits``) is clear, else
    ``levels[table, codes[j]]`` for the ``j``-th set bit (``codes`` has one per set bit)."""
    tables, size = w.shape
    j = 0
    for t in range(tables):
        for i in range(size):
            bit = t * size + i
            if mask[bit >> 3] & (128 >> (bit & 7)):
                w[t, i] = levels[t, codes[j]]
                j += 1
            else:
                w[t, i] = 0.0
