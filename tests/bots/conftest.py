"""The browser tests' Chromium, shared with tests/browser."""

from tests.browser.conftest import chromium  # noqa: F401 - fixtures
