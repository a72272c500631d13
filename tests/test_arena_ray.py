"""The Ray backend (one task per colour-swapped pair, the driver writes the database) plays the
same games as the local backend, on a local Ray instance started here."""

import pytest

from mctslab.harness import experiments as ex
from mctslab.harness.store import ResultsStore
from test_experiment import TINY


@pytest.fixture
def tiny(tmp_path):
    p = tmp_path / "tiny.toml"
    p.write_text(TINY)
    return p


def test_ray_and_local_backends_agree(tiny, tmp_path):
    ray = pytest.importorskip("ray")
    exp = ex.load(str(tiny), "quick")
    with ResultsStore(tmp_path / "local.sqlite") as s:
        local = ex.run(exp, s, workers=1)
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        with ResultsStore(tmp_path / "ray.sqlite") as s:
            remote = ex.run(exp, s, backend="ray")
    finally:
        ray.shutdown()

    def games(results):
        return [
            [(r["game"], r["moves"], r["returns"]) for r in c.match.rows]
            for t in results
            for c in t.cells
        ]

    assert games(local) == games(remote)
