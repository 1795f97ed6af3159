"""The names the admin shows for our models: app names, model names (singular and plural), field
names, help texts and choice labels. Each is a lazy translation whose msgid is in the `django`
catalogue of every language (or, for the fields `AbstractUser` brings, in Django's own), so the
moderators' admin reads in their language. tests/i18n/test_pages.py then renders the admin
pages and looks for English left on them."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.conf import settings
from django.utils import translation
from django.utils.functional import Promise

from tests.i18n.catalogs import LANGUAGES, catalog

TRANSLATED = [language for language in LANGUAGES if language != "en"]
APPS = ["accounts", "games"]


def _names(app_label: str) -> list[tuple[str, object]]:
    """(where, lazy text) for each name of the app the admin can show."""
    config = apps.get_app_config(app_label)
    names = [(app_label, config.verbose_name)]
    for model in config.get_models():
        opts = model._meta
        names += [
            (f"{opts.label} verbose_name", opts.verbose_name),
            (f"{opts.label} verbose_name_plural", opts.verbose_name_plural),
        ]
        for field in [*opts.fields, *opts.many_to_many]:
            if field.auto_created:
                continue  # the "ID" column
            where = f"{opts.label}.{field.name}"
            names.append((where, field.verbose_name))
            if field.help_text:
                names.append((f"{where} help_text", field.help_text))
            if [tuple(choice) for choice in field.choices or []] == list(settings.LANGUAGES):
                continue  # each language by its own name ("Français"), in every language
            for value, label in field.flatchoices:
                if label != "":
                    names.append((f"{where} choice {value}", label))
    return names


def _ours(language: str) -> dict[str, set[str]]:
    """msgid → its translations in our catalogue (one per context it appears in)."""
    found: dict[str, set[str]] = {}
    for entry in catalog(language, "django"):
        if not entry.obsolete and not entry.msgid_plural:
            found.setdefault(entry.msgid, set()).add(entry.msgstr)
    return found


def _msgid(text: Promise) -> str:
    """The msgid a lazy gettext_lazy / pgettext_lazy text was made from: what it renders as
    with no translation active."""
    with translation.override(None):
        return str(text)


@pytest.mark.parametrize("app_label", APPS)
def test_every_admin_name_is_a_lazy_translation(app_label):
    plain = [where for where, text in _names(app_label) if not isinstance(text, Promise)]
    assert plain == [], "wrap these in gettext_lazy: " + ", ".join(plain)


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("app_label", APPS)
def test_every_admin_name_is_translated(app_label, language):
    ours = _ours(language)
    untranslated = []
    for where, text in _names(app_label):
        if not isinstance(text, Promise):
            continue  # reported by the test above
        key = _msgid(text)
        with translation.override("en"):
            english = str(text)
        with translation.override(language):
            shown = str(text)
        if key in ours:
            # ours: translated in the catalogue, and the running server shows that (the .mo)
            if not all(ours[key]) or shown not in ours[key]:
                untranslated.append(f"{where}: {english!r}")
        elif shown == english:
            # not ours (AbstractUser's fields): Django's catalogue must translate it
            untranslated.append(f"{where}: {english!r} (in no catalogue)")
    assert untranslated == [], f"{language}: " + "; ".join(untranslated)
