"""Shared test settings."""

import os
import subprocess

import pytest
from hypothesis import HealthCheck, settings

# Numba compiles on first use; the first example of a property test may be slow.
settings.register_profile(
    "mctslab", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "ci", parent=settings.get_profile("mctslab"), derandomize=True, max_examples=60
)
settings.load_profile("ci" if os.environ.get("CI") else "mctslab")


@pytest.fixture
def make_unwritable():
    """``make_unwritable(path)``: a file that cannot be written, even by root (``chattr +i``,
    undone after the test; ``chmod 444`` for other users)."""
    locked = []

    def lock(path):
        if os.geteuid() != 0:
            path.chmod(0o444)
            return
        if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
            pytest.skip("chattr +i is not available here")
        locked.append(path)

    yield lock
    for path in locked:
        subprocess.run(["chattr", "-i", str(path)], check=True)


@pytest.fixture
def tiny_az_model(tmp_path):
    """``write(game)``: an untrained 1-block, 4-channel az network for ``game`` saved as a model
    file in ``tmp_path``; returns its path (skips without PyTorch)."""
    pytest.importorskip("torch")
    from mctslab.search import az_net

    def write(game):
        net = az_net.AzNet(az_net.shape_for(game, blocks=1, channels=4))
        model = tmp_path / "model.pt"
        az_net.save(model, az_net.net_payload(net, game.spec.spec_string))
        return model

    return write
