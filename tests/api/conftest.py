"""Fixtures of the API tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def no_auth_rate_limit(settings):
    """Every test client comes from 127.0.0.1, so the per-address sign-up and login limit would
    carry over from test to test; the tests about it switch it on from fresh addresses."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"auth": None}}
