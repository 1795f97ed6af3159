"""The house's structural rules, checked on the source: no import cycle, no private name of
the frameworks, one writer of the log, one error vocabulary that is translated, documented
and in the OpenAPI schema."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from django.utils import translation

from taxi_project import error_codes

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "accounts", "taxi_project")
LANGUAGES = ("en", "fr", "pl", "ja", "ko")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = path
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """Every project module `path` imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                name = f"{node.module}.{alias.name}"
                found.add(name if name in modules else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in modules}


def test_no_import_cycle_anywhere_in_the_project():
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    cycles = []

    def visit(name, trail):
        for imported in sorted(graph[name]):
            if imported in trail:
                cycles.append(trail[trail.index(imported) :] + [imported])
            elif imported not in done:
                visit(imported, trail + [imported])
        done.add(name)

    done: set[str] = set()
    for name in sorted(graph):
        if name not in done:
            visit(name, [name])
    assert cycles == []


def test_services_never_import_tasks():
    modules = _modules()
    for name, path in modules.items():
        if name.startswith("games.services"):
            assert "games.tasks" not in _imports(path, modules), name


PRIVATE = re.compile(
    r"from (django|rest_framework|channels|channels_redis|redis|psycopg|celery)\S* import "
    r"(\(?\s*)?_[a-z]"
    r"|get_db_converters|integer_field_ranges|cast_db_type|_consistent_hash|set_cached_value"
    r"|__group__|\((ASGIHandler|WSGIHandler)\)|\._servers\b|_pool_class|_pool_options"
    r"|django_redis\.RedisCacheClient|_declared_fields|\btext\._args"
)


def test_the_project_uses_no_private_name_of_its_frameworks():
    offenders = []
    for folder in (*PACKAGES, "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == Path(__file__).name:
                continue
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if PRIVATE.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []


def test_only_the_repository_writes_the_log():
    """The repository appends entries; games/archive.py alone moves a finished game's entries
    into its archive row (it deletes them, and builds unsaved `GameEntry` objects when reading
    the archive back, never saving one); nothing else touches the rows."""
    creates = re.compile(r"(?<!class )GameEntry(\.objects\.(create|bulk_create)|\()")
    writers = []
    for path in (ROOT / "games").rglob("*.py"):
        if "migrations" in path.parts or path.name == "repository.py":
            continue
        text = path.read_text()
        if path.name == "archive.py" and path.parent.name == "games":
            if re.search(r"GameEntry\.objects\.(create|bulk_create)|\.save\(", text):
                writers.append(str(path.relative_to(ROOT)))
            continue
        if creates.search(text) or ("GameEntry" in text and ".delete(" in text):
            writers.append(str(path.relative_to(ROOT)))
    assert writers == []


def test_every_error_code_has_a_message_in_every_language():
    untranslated = []
    for language in LANGUAGES:
        with translation.override(language):
            for code, (_status, message) in error_codes.vocabulary().items():
                text = str(message)
                if not text or (language != "en" and text == _english(message)):
                    untranslated.append((language, code))
    assert untranslated == []


def _english(message) -> str:
    with translation.override("en"):
        return str(message)


def test_every_error_code_is_documented_and_in_the_openapi_schema(db):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    enumerated = set()
    for component in schema["components"]["schemas"].values():
        enumerated.update(component.get("enum") or ())
    documented = set(re.findall(r"^\| `(\w+)` \|", (ROOT / "docs/errors.md").read_text(), re.M))
    codes = set(error_codes.codes())
    assert codes - enumerated == set()
    assert codes - documented == set()
    assert documented - codes == set()


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409, 413, 422, 429, 503])
def test_codes_have_the_documented_status(status):
    documented = {
        code: int(found)
        for code, found in re.findall(
            r"^\| `(\w+)` \| (\d{3}) \|", (ROOT / "docs/errors.md").read_text(), re.M
        )
    }
    for code, (code_status, _message) in error_codes.vocabulary().items():
        if code_status == status:
            assert documented[code] == status, code


def test_docs_errors_md_is_what_the_command_prints():
    from games.management.commands.error_codes import page

    assert (ROOT / "docs/errors.md").read_text() == page()
