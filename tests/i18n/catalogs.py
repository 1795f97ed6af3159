"""The translation catalogues as tests read them (polib), and what "untranslated" means."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import polib
from django.conf import settings

LANGUAGES = [code for code, _name in settings.LANGUAGES]
DOMAINS = ["django", "djangojs"]
LOCALE = Path(settings.LOCALE_PATHS[0])
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def po_path(language: str, domain: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{domain}.po"


@cache
def catalog(language: str, domain: str) -> polib.POFile:
    return polib.pofile(str(po_path(language, domain)))


def live_entries(language: str, domain: str) -> list[polib.POEntry]:
    return [entry for entry in catalog(language, domain) if not entry.obsolete]


def msgids(language: str, domain: str) -> set[str]:
    return {entry.msgid for entry in live_entries(language, domain)}


def english_only(language: str) -> dict[str, str]:
    """Every English msgid (and plural msgid) whose translation into `language` differs from it,
    mapped to a pattern that matches it once rendered (placeholders match anything)."""
    found: dict[str, str] = {}
    for domain in DOMAINS:
        for entry in live_entries(language, domain):
            pairs = [(entry.msgid, entry.msgstr)]
            if entry.msgid_plural:
                forms = list(entry.msgstr_plural.values())
                pairs = [(entry.msgid, forms[0]), (entry.msgid_plural, forms[-1])]
            for english, translated in pairs:
                # "%(seat)s (%(player)s)" has no words of its own: nothing to find
                words = re.search(r"[A-Za-z]{2,}", PLACEHOLDER.sub("", english))
                if english != translated and words:
                    found[english] = rendered_pattern(english)
    return found


def rendered_pattern(text: str) -> str:
    parts = PLACEHOLDER.split(text)
    # split() alternates literal text and placeholder names
    return ".+?".join(re.escape(part) for part in parts[::2])
