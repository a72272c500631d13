"""A tiny, deterministic random number generator for compiled kernels.

Kernels carry the generator state as a ``numpy.uint64`` scalar, passed in and returned
(``x, r = below(x, n)``): scalar helpers are inlined by LLVM and cost nothing, whereas a helper
that takes an array adds reference counting on every call (docs/architecture.md, the measured speed
traps).

The generator is Marsaglia's xorshift64 (shifts 13, 7, 17; Marsaglia 2003, "Xorshift RNGs",
J. Stat. Softw. 8(14)). It uses only shifts and xors, so it runs bit-for-bit the same when compiled
and as plain Python under ``NUMBA_DISABLE_JIT=1`` (no overflow warnings from NumPy scalars), which
is what makes a seeded search reproducible in both modes. Bounded integers use the multiply-shift
method on the high 32 bits, ``((x >> 32) * n) >> 32`` (Lemire 2019, "Fast random integer generation
in an interval", ACM TOMACS 29(1)): no division, and the product stays below 2**64 for n < 2**32;
the bias is below n / 2**32, negligible for board sizes.

From Python, always pass the state as ``numpy.uint64``: a compiled kernel returns it as a plain
``int``, and a plain ``int`` below 2**63 would be typed ``int64`` on the next call (arithmetic
shifts, a different generator). Wrap it with :func:`as_state`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_U7 = np.uint64(7)
_U11 = np.uint64(11)
_U13 = np.uint64(13)
_U17 = np.uint64(17)
_U32 = np.uint64(32)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53
_MASK64 = (1 << 64) - 1


def seed_state(seed: int) -> np.uint64:
    """Turn any integer seed into a non-zero generator state (SplitMix64 finaliser, in Python)."""
    z = (int(seed) + 0x9E3779B97F4A7C15) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    z ^= z >> 31
    return np.uint64(z or 0x2545F4914F6CDD1D)


def as_state(x: int) -> np.uint64:
    """A generator state returned by a kernel (a Python ``int``), ready to pass back in."""
    return np.uint64(x)


@njit(cache=True)
def next_u64(x):
    """One xorshift64 step: ``x ^= x<<13; x ^= x>>7; x ^= x<<17``."""
    x ^= x << _U13
    x ^= x >> _U7
    x ^= x << _U17
    return x


@njit(cache=True)
def below(x, n):
    """Advance the state; return ``(state, r)``, ``r`` uniform in ``0..n-1`` (1 <= n < 2**32)."""
    x = next_u64(x)
    return x, np.int64(((x >> _U32) * np.uint64(n)) >> _U32)


@njit(cache=True)
def uniform(x):
    """Advance the state and return ``(state, u)`` with ``u`` uniform in ``[0, 1)`` (53 bits)."""
    x = next_u64(x)
    return x, np.float64(x >> _U11) * _INV53


@njit(cache=True)
def weighted(x, probs, n):
    """Advance the state; return ``(state, i)``, ``i`` in ``0..n-1`` drawn with probability
    ``probs[i]`` (inversion of the cumulative sum; the last index takes any rounding remainder).
    Used for chance outcomes."""
    x, u = uniform(x)
    i = 0
    acc = probs[0]
    while acc <= u and i < n - 1:
        i += 1
        acc += probs[i]
    return x, i
