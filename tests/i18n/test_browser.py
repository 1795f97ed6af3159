"""The scripts speak the page's language in a real Chromium: wording.js, fed by the script
catalogue (/jsi18n.js: djangojs plus wording.py's sentences), words every notification exactly
as games/wording.py does in that language; the switcher changes the language of the pages."""

from __future__ import annotations

import os

import pytest
from django.utils import translation

from games.wording import describe
from tests.browser.test_web_client import CHROMIUM, NOTIFICATIONS, sync_api
from tests.i18n.catalogs import catalog

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(sync_api is None, reason="needs playwright (pip install playwright)"),
    pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"needs {CHROMIUM}"),
]

DESCRIBE_ALL = """async (notifications) => {
    const { describe } = await import('/static/web/wording.js');
    return notifications.map(describe);
}"""


@pytest.mark.parametrize("language", ["ko", "pl", "ja", "fr"])
def test_the_page_words_notifications_in_its_language(server, browser, language):
    context = browser.new_context(locale=language)
    page = context.new_page()
    page.goto(server.url("/login"))
    assert page.get_attribute("html", "lang") == language
    page.wait_for_function("typeof globalThis.gettext === 'function'")
    sentences = page.evaluate(DESCRIBE_ALL, NOTIFICATIONS)
    with translation.override(language):
        assert sentences == [describe(n) for n in NOTIFICATIONS]
    # and the scripts' own words, from the djangojs catalogue
    own = {e.msgid: e.msgstr for e in catalog(language, "djangojs") if not e.msgid_plural}
    lost = "Connection lost. Reconnecting…"
    assert page.evaluate(f"gettext({lost!r})") == own[lost] != lost
    english = [describe(n) for n in NOTIFICATIONS]
    assert sum(a != b for a, b in zip(sentences, english, strict=True)) >= len(english) - 3
    context.close()


def test_the_switcher_changes_the_language_of_the_pages(server, browser):
    context = browser.new_context(locale="en-GB")
    page = context.new_page()
    page.goto(server.url("/login"))
    assert page.get_attribute("html", "lang") == "en"
    page.select_option("#language-select", "ja")
    page.click("#language-switcher button[type=submit]")
    page.wait_for_url("**/login")
    assert page.get_attribute("html", "lang") == "ja"
    with translation.override("ja"):
        assert page.inner_text("h1") == translation.gettext("Log in")
        assert page.evaluate("gettext('Reconnecting…')") == "再接続中…"
    context.close()
