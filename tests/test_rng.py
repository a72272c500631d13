"""The kernel RNG: deterministic, uniform enough, and identical with and without compilation."""

import numpy as np

from mctslab.kernels import rng


def test_seed_state_is_nonzero_and_distinct():
    states = {int(rng.seed_state(s)) for s in range(1000)}
    assert len(states) == 1000 and 0 not in states


def test_below_is_uniform_chi_square():
    x = rng.seed_state(42)
    counts = np.zeros(7, dtype=np.int64)
    for _ in range(70_000):
        x, r = rng.below(rng.as_state(x), 7)
        counts[r] += 1
    expected = 10_000
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < 22.46  # chi-square, 6 degrees of freedom, p = 0.001


def test_uniform_is_in_unit_interval_with_mean_one_half():
    x = rng.seed_state(1)
    values = []
    for _ in range(20_000):
        x, u = rng.uniform(rng.as_state(x))
        values.append(u)
    v = np.array(values)
    assert v.min() >= 0.0 and v.max() < 1.0
    assert abs(v.mean() - 0.5) < 4 * (1 / 12) ** 0.5 / 20_000**0.5


def test_compiled_equals_python():
    x = rng.seed_state(3)
    y = x
    for _ in range(100):
        x = rng.next_u64(rng.as_state(x))
        y = rng.next_u64.py_func(y)
        assert int(x) == int(y)


def test_state_returned_to_python_must_be_wrapped():
    """Why as_state exists: a plain int below 2**63 would select the int64 specialisation."""
    x = rng.seed_state(0)
    while int(x) >= 2**63:
        x = rng.next_u64(rng.as_state(x))
    assert int(rng.next_u64(rng.as_state(int(x)))) == int(rng.next_u64.py_func(np.uint64(x)))
