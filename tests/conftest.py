"""Shared test settings."""

import os

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
