"""Statistics against known values and exact identities."""

import math

import pytest

from mctslab.harness import stats


def test_wilson_interval_known_value():
    # 8 wins in 10: the textbook Wilson 95% interval is [0.4902, 0.9433]
    lo, hi = stats.wilson_interval(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_interval_never_leaves_zero_one():
    assert stats.wilson_interval(0, 5)[0] == 0.0
    assert stats.wilson_interval(5, 5)[1] == 1.0
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("n", [1, 7, 100, 400, 1000])
def test_wilson_interval_holds_the_rate(n):
    # rounding once put 0 of 100 outside [3.5e-18, 0.037], and a plot's error bar went negative
    for k in range(n + 1):
        lo, hi = stats.wilson_interval(k, n)
        assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_two_sigma_is_the_papers_figure():
    # NoGo paper §3.3: 78% at "standard deviation 3.25%" needs about 163 games
    assert stats.two_sigma(50, 100) == pytest.approx(0.1)
    assert stats.two_sigma(0.78 * 163, 163) / 2 == pytest.approx(0.0325, abs=2e-4)


def test_elo_known_values():
    assert stats.elo_from_score(0.5) == 0.0
    assert stats.elo_from_score(0.75) == pytest.approx(190.848, abs=1e-3)
    assert stats.elo_from_score(10 / 11) == pytest.approx(400.0)
    assert stats.score_from_elo(stats.elo_from_score(0.3)) == pytest.approx(0.3)
    assert stats.elo_from_score(1.0) == math.inf


def test_elo_interval_by_hand():
    # 60 wins, 40 losses: mu = .6, per-game sd = .4899, se = .04899; 95%: .6 ± .09602
    elo, lo, hi = stats.elo_interval(60, 0, 40)
    assert elo == pytest.approx(70.437, abs=1e-3)
    assert lo == pytest.approx(stats.elo_from_score(0.6 - 1.959964 * 0.0489898), abs=1e-3)
    assert hi == pytest.approx(stats.elo_from_score(0.6 + 1.959964 * 0.0489898), abs=1e-3)
    # draws shrink the spread of the per-game score
    _, lo_d, hi_d = stats.elo_interval(50, 20, 30)
    assert hi_d - lo_d < hi - lo


def test_likelihood_of_superiority():
    assert stats.likelihood_of_superiority(60, 40) == pytest.approx(0.97725, abs=1e-5)
    assert stats.likelihood_of_superiority(0, 0) == 0.5
    assert stats.likelihood_of_superiority(3, 7) == pytest.approx(
        1 - stats.likelihood_of_superiority(7, 3)
    )


def test_sprt_binomial_by_hand():
    test = stats.Sprt(elo0=0, elo1=100, alpha=0.05, beta=0.05)
    lo, hi = test.bounds
    assert hi == pytest.approx(math.log(19)) and lo == pytest.approx(-math.log(19))
    p1 = 1 / (1 + 10 ** (-0.25))  # 0.64006
    assert test.llr(10, 0, 0) == pytest.approx(10 * math.log(p1 / 0.5))
    assert test.status(11, 0, 0) == "continue"  # 11 × 0.24696 = 2.717 < 2.944
    assert test.status(12, 0, 0) == "H1"  # 2.964
    assert test.llr(0, 0, 10) == pytest.approx(10 * math.log((1 - p1) / 0.5))
    assert test.status(0, 0, 9) == "H0"


def test_sprt_trinomial_symmetry_and_direction():
    test = stats.Sprt(elo0=-20, elo1=20)
    assert test.llr(30, 40, 50) == pytest.approx(-test.llr(50, 40, 30))
    assert test.llr(60, 40, 20) > 0 > test.llr(20, 40, 60)
    assert test.status(600, 400, 200) == "H1"
    assert test.llr(5, 5, 0) == 0.0  # no draw-Elo estimate yet (cutechess-cli)
