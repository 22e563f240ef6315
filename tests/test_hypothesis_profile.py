"""The property tests run without time limits (tests/conftest.py's hypothesis profile): a
deadline per example is a time assertion, which fails on a loaded machine, not on a rule."""

from __future__ import annotations

from hypothesis import HealthCheck, settings


def test_the_shared_profile_sets_no_deadline_and_no_slowness_check() -> None:
    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check


def test_a_tests_own_settings_keep_the_profiles_no_deadline() -> None:
    # settings(max_examples=...) on a test inherits the profile for what it does not name
    assert settings(max_examples=5).deadline is None

