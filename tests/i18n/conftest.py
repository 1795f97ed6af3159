"""The browser tests' real server and Chromium, shared with tests/browser."""

from tests.browser.conftest import chromium, web_server  # noqa: F401 - fixtures
from tests.browser.test_web_client import browser, server  # noqa: F401 - fixtures
