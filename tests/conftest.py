"""Shared test settings."""

import os

from hypothesis import HealthCheck, settings

# Numba compiles on first use; the first example of a property test may be slow.
settings.register_profile(
    "mctslab", deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)
settings.register_profile(
    "ci", parent=settings.get_profile("mctslab"), derandomize=True, max_examples=60
)
settings.load_profile("ci" if os.environ.get("CI") else "mctslab")
