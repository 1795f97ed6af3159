"""The catalogues themselves: complete in every language, nothing fuzzy, placeholders kept,
compiled files in step with their sources, and up to date with the code (makemessages finds
nothing new)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import polib
import pytest

from tests.i18n.catalogs import (
    DOMAINS,
    LANGUAGES,
    LOCALE,
    PLACEHOLDER,
    catalog,
    live_entries,
    msgids,
    po_path,
)

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = [(language, domain) for language in LANGUAGES for domain in DOMAINS]


def test_the_five_languages_have_both_catalogues():
    assert LANGUAGES == ["en", "fr", "pl", "ja", "ko"]
    for language, domain in CATALOGS:
        assert po_path(language, domain).exists(), (language, domain)
        assert po_path(language, domain).with_suffix(".mo").exists(), (language, domain)


@pytest.mark.parametrize(("language", "domain"), CATALOGS)
def test_every_string_is_translated_and_none_is_fuzzy(language, domain):
    po = catalog(language, domain)
    assert not po.metadata_is_fuzzy, f"{language}/{domain}: the header is fuzzy"
    assert po.metadata.get("Language") == language
    fuzzy = [entry.msgid for entry in live_entries(language, domain) if "fuzzy" in entry.flags]
    untranslated = [entry.msgid for entry in po.untranslated_entries()]
    assert fuzzy == [], f"{language}/{domain}: fuzzy {fuzzy}"
    assert untranslated == [], f"{language}/{domain}: untranslated {untranslated}"
    assert po.percent_translated() == 100


@pytest.mark.parametrize(("language", "domain"), CATALOGS)
def test_translations_keep_every_placeholder(language, domain):
    """A dropped or misspelt %(name)s would raise, or lose a number, when rendered."""
    wrong = []
    for entry in live_entries(language, domain):
        wanted = set(PLACEHOLDER.findall(entry.msgid)) | set(
            PLACEHOLDER.findall(entry.msgid_plural or "")
        )
        forms = list(entry.msgstr_plural.values()) if entry.msgid_plural else [entry.msgstr]
        for form in forms:
            # a singular form may leave the count implicit ("1 card" → "une carte")
            if set(PLACEHOLDER.findall(form)) - wanted or (
                not entry.msgid_plural and set(PLACEHOLDER.findall(form)) != wanted
            ):
                wrong.append((entry.msgid, form))
    assert wrong == []


@pytest.mark.parametrize(("language", "domain"), CATALOGS)
def test_the_compiled_catalogue_matches_its_source(language, domain):
    """The .mo files are committed (a fresh machine needs no GNU gettext): each must hold what
    its .po says, so an edit without `compilemessages` fails here."""
    source = {
        (entry.msgid, entry.msgid_plural): (entry.msgstr, dict(entry.msgstr_plural))
        for entry in live_entries(language, domain)
    }
    compiled = {
        (entry.msgid, entry.msgid_plural): (entry.msgstr, dict(entry.msgstr_plural))
        for entry in polib.mofile(str(po_path(language, domain).with_suffix(".mo")))
        if entry.msgid
    }
    assert compiled == source


def test_the_plural_rules_are_each_languages_own():
    plural = {
        language: catalog(language, "django").metadata["Plural-Forms"] for language in LANGUAGES
    }
    assert plural["en"].startswith("nplurals=2") and plural["fr"] == "nplurals=2; plural=(n > 1);"
    assert plural["pl"].startswith("nplurals=4")  # as Django's own Polish catalogue
    assert plural["ja"] == plural["ko"] == "nplurals=1; plural=0;"
    for language in LANGUAGES:
        assert catalog(language, "djangojs").metadata["Plural-Forms"] == plural[language]


JS_CALL = re.compile(r'\bn?gettext\(\s*"((?:[^"\\]|\\.)*)"')


def test_the_scripts_wording_is_the_servers():
    """wording.js is kept out of `djangojs` (accounts/management/commands/makemessages.py): its
    msgids must then all be games/wording.py's, which the script catalogue serves with it."""
    source = (ROOT / "games" / "static" / "web" / "wording.js").read_text(encoding="utf-8")
    used = set(JS_CALL.findall(source))
    assert len(used) > 25
    assert used - msgids("en", "django") == set()


def _msgids_of(path: Path) -> set[tuple[str, str]]:
    return {(e.msgid, e.msgid_plural) for e in polib.pofile(str(path)) if not e.obsolete}


@pytest.mark.skipif(
    shutil.which("xgettext") is None and not os.environ.get("REQUIRE_SERVICES"),
    reason="makemessages needs GNU gettext (apt-get install gettext)",
)
def test_makemessages_finds_nothing_new(tmp_path):
    """Run makemessages on a copy of the tree: the catalogues it writes must hold exactly the
    msgids committed (nothing new in the code, nothing left over)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.mo")
    for name in ("accounts", "games", "taxi_project", "locale"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=ignore)
    shutil.copy(ROOT / "manage.py", tmp_path / "manage.py")
    env = {
        **os.environ,
        "DEBUG": "true",
        "DJANGO_SETTINGS_MODULE": "taxi_project.settings",
        "PYTHONPATH": str(tmp_path),
    }
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    for domain in DOMAINS:
        subprocess.run(
            [sys.executable, "manage.py", "makemessages", "--all", "--no-location", "-d", domain],
            cwd=tmp_path,
            env=env,
            check=True,
            capture_output=True,
        )
    for language in LANGUAGES:
        for domain in DOMAINS:
            relative = po_path(language, domain).relative_to(LOCALE)
            fresh = _msgids_of(tmp_path / "locale" / relative)
            committed = _msgids_of(po_path(language, domain))
            assert fresh - committed == set(), f"{relative}: not in the catalogue"
            assert committed - fresh == set(), f"{relative}: no longer in the code"
