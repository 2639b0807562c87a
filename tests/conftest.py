"""Settings shared by the whole suite."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# The suite runs on two shared cores next to other workers: a property test must not fail
# because one example was slow, only because it was wrong.
settings.register_profile("sgdebug", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("sgdebug")
