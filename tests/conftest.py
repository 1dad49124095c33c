"""Settings shared by every test."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# Timing is for bench/, not for tests: a first call that builds and lambdifies a sympy
# derivation may take longer than Hypothesis' default 200 ms deadline on a busy CI
# machine, which would make a correct property "flaky". Tests assert behaviour only.
settings.register_profile("quiz", deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("quiz")
