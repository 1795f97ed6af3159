"""The house's structural rules, checked on the source: no import cycle, layers that point down
through any chain of imports, no private name of the frameworks, one writer of the log, one
error vocabulary that is translated, documented and in the OpenAPI schema."""

from __future__ import annotations

import ast
import re
from collections import deque
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


def _imports(path: Path, modules: dict[str, Path], *, typing: bool = True) -> set[str]:
    """Every project module `path` imports, at its top or inside a function."""
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    package = path.name == "__init__.py"
    return imports_in(path.read_text(), name, modules, package=package, typing=typing)


def imports_in(
    source: str, name: str, modules, *, package: bool = False, typing: bool = True
) -> set[str]:
    """The modules of `modules` that the source of module `name` imports, absolute or
    relative: at its top, inside a function, and (with `typing`) under `if TYPE_CHECKING`,
    which is a dependency too, though one that never runs."""
    here = name.split(".") if package else name.split(".")[:-1]
    tree = ast.parse(source)
    typing_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for block in node.body
        for inner in ast.walk(block)
    }
    found = set()
    for node in ast.walk(tree):
        if not typing and id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*here[: len(here) - node.level + 1], *filter(None, [base])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in modules else base)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {module for module in found if module in modules} - {name}


def import_graph(*, typing: bool = True) -> dict[str, set[str]]:
    """Every module's imports; the registry's include the registrations it imports by name
    (games/registry.py: `REGISTERED`)."""
    from games import registry

    modules = _modules()
    graph = {name: _imports(path, modules, typing=typing) for name, path in modules.items()}
    graph["games.registry"] |= set(registry.REGISTERED)
    return graph


def test_no_import_cycle_anywhere_in_the_project():
    """At run time: an import only type checking sees may close a loop (the engine's
    autopilot names the `Game` it reads)."""
    graph = import_graph(typing=False)
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


# ---------------------------------------------------------------------------------- layers

#: docs/architecture.md, "Layers", top down. A module may depend on its own layer and those
#: below it, never on one above, whether it imports it or reaches it through other modules.
#: The edges: requests, sockets, tasks, admin and pages come in at the top (entrypoints);
#: what the write paths tell the outside world after commit goes out through the adapters
#: (the channel layer, devices' pushes, presence), which decide nothing and call no service.
LAYERS = ("entrypoints", "services", "adapters", "storage", "engine")

#: Every module of PACKAGES, by layer. A name is a module; `name.*` is a package and every
#: module under it (a folder that is a layer). A module in none fails the test: say where a
#: new one belongs.
LAYER_OF = {
    "entrypoints": (
        "games", "games.apis", "games.player_apis", "games.consumers", "games.routing",
        "games.streams", "games.tasks", "games.admin", "games.admin_moderation",
        "games.admin_replay", "games.web", "games.player_web", "games.web_push", "games.web_urls",
        "games.urls", "games.apps", "games.serializers", "games.schema", "games.schema_digit_code",
        "games.throttles",
        "games.board_layout", "games.replay_turns", "games.rating_chart", "games.management.*",
        "games.templatetags.*",
        "accounts", "accounts.apis", "accounts.web", "accounts.urls", "accounts.tasks",
        "accounts.admin", "accounts.admin_forms", "accounts.apps", "accounts.schema",
        "accounts.serializers", "accounts.throttles", "accounts.channels_auth",
        "accounts.credentials", "accounts.origin", "accounts.management.*",
        "taxi_project", "taxi_project.settings", "taxi_project.urls", "taxi_project.asgi",
        "taxi_project.wsgi", "taxi_project.serve", "taxi_project.sync_limit",
        "taxi_project.worker_load",
        "taxi_project.celery", "taxi_project.health", "taxi_project.i18n",
        "taxi_project.body_limit", "taxi_project.connection_limits", "taxi_project.csp",
        "taxi_project.error_pages", "taxi_project.error_codes", "taxi_project.pagination",
        "taxi_project.parsers", "taxi_project.renderers", "taxi_project.strict_fields",
    ),
    "services": (
        "games.services.*", "games.selectors", "games.moderation", "games.player_stats",
        "games.ratings", "games.errors",
        "accounts.services", "accounts.selectors", "accounts.push", "accounts.authentication",
        "accounts.errors",
        "taxi_project.api_errors",
    ),
    "adapters": (
        "games.events", "games.push", "games.presence", "games.wording",
        "accounts.push_backends", "accounts.push_targets", "accounts.vapid",
        "accounts.middleware",
        "taxi_project.cache",
    ),
    "storage": (
        "games.repository", "games.log", "games.archive", "games.models", "games.state",
        "games.db_guards", "games.registry", "games.game_kind", "games.bahama_taxi",
        "games.bahama_taxi.kind",
        "games.digit_code.kind",
        "accounts.models", "accounts.names",
        "taxi_project.dbpool",
    ),
    "engine": ("games.engine.*", "games.digit_code", "games.digit_code.engine.*"),
}  # fmt: skip


def _covers(pattern: str, name: str) -> bool:
    return name == pattern or (pattern.endswith(".*") and f"{name}.".startswith(pattern[:-1]))


def layer_of(name: str, table=LAYER_OF) -> str | None:
    """The module's layer: named as itself, else by the innermost package named with `.*`."""
    covering = [
        (pattern != name, -len(pattern), layer)
        for layer, names in table.items()
        for pattern in names
        if _covers(pattern, name)
    ]
    return min(covering)[2] if covering else None


def upward_reaches(graph: dict[str, set[str]], layer, layers=LAYERS) -> list[str]:
    """Each module that reaches, through any chain of imports, a module of a layer above its
    own, with the shortest such chain: `a (storage) → b → c (services)`. A module without a
    layer is left to the test that asks for one."""
    height = {name: len(layers) - number for number, name in enumerate(layers)}
    height[None] = 0  # an import of a module without a layer is not counted as upward
    found = []
    for start in sorted(graph):
        if layer(start) is None:
            continue
        mine = height[layer(start)]
        came_from = {start: start}
        queue = deque([start])
        while queue:
            name = queue.popleft()
            above = [n for n in sorted(graph[name]) if height[layer(n)] > mine]
            if above:
                chain = [above[0], name]
                while chain[-1] != start:
                    chain.append(came_from[chain[-1]])
                chain.reverse()
                found.append(
                    f"{start} ({layer(start)}) → "
                    + " → ".join(chain[1:-1] + [f"{chain[-1]} ({layer(chain[-1])})"])
                )
                break
            for imported in sorted(graph[name]):
                if imported not in came_from:
                    came_from[imported] = name
                    queue.append(imported)
    return found


def test_every_module_has_a_layer_and_every_name_of_the_table_is_a_module():
    modules = set(_modules())
    assert sorted(name for name in modules if layer_of(name) is None) == []
    named = [pattern for names in LAYER_OF.values() for pattern in names]
    assert [p for p in named if not any(_covers(p, name) for name in modules)] == []
    assert sorted(p for p in set(named) if named.count(p) > 1) == []


def test_dependencies_point_down_only_through_any_chain_of_imports():
    """Storage never reaches the services (nor the adapters that tell the outside world), an
    adapter never reaches a service or a task, the engine reaches nothing but itself."""
    assert upward_reaches(import_graph(), layer_of) == []


def test_the_layer_check_finds_a_break_two_imports_away():
    layers = {"store": "storage", "helper": "storage", "service": "services",
              "view": "entrypoints", "rules": "engine"}  # fmt: skip
    graph = {
        "view": {"service"},
        "service": {"store", "rules"},
        "store": {"helper", "rules"},
        "helper": set(),
        "rules": set(),
    }
    assert upward_reaches(graph, layers.get) == []
    graph["helper"] = {"service"}  # storage → a helper of its own layer → a service
    assert upward_reaches(graph, layers.get) == [
        "helper (storage) → service (services)",
        "store (storage) → helper → service (services)",
    ]
    graph["helper"], graph["rules"] = set(), {"view"}  # the engine → an entrypoint
    assert upward_reaches(graph, layers.get) == [
        "rules (engine) → view (entrypoints)",
        "service (services) → rules → view (entrypoints)",
        "store (storage) → rules → view (entrypoints)",
    ]


def test_imports_are_found_inside_functions_and_relative_ones_resolved():
    modules = {"games.push", "games.events", "games.engine", "games.engine.game"}
    source = "from . import events\n\ndef later():\n    from games import push\n"
    assert imports_in(source, "games.repository", modules) == {"games.events", "games.push"}
    assert imports_in("from .game import Game\n", "games.engine", modules, package=True) == {
        "games.engine.game"
    }
    typed = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .game import Game\n"
    assert imports_in(typed, "games.engine.autopilot", modules) == {"games.engine.game"}
    assert imports_in(typed, "games.engine.autopilot", modules, typing=False) == set()


#: The game packages: each game's engine and registration (games/registry.py).
GAME_PACKAGES = ("games.engine", "games.digit_code", "games.bahama_taxi")


def _in_game_package(name: str) -> str | None:
    return next((p for p in GAME_PACKAGES if name == p or name.startswith(f"{p}.")), None)


def test_platform_modules_import_no_game_package_only_the_registry():
    """The platform reaches a game's engine only through `registry.get(game.kind)`: no module
    outside the game packages imports one of them, but games/registry.py (which imports each
    registration named in `REGISTERED`). A game package may import another's shared parts
    (Digit Code's engine uses Bahama Taxi's seeded generator) and the registry's `GameKind`."""
    graph = import_graph()
    found = sorted(
        f"{name} imports {imported}"
        for name, imports in graph.items()
        if name != "games.registry" and _in_game_package(name) is None
        for imported in imports
        if _in_game_package(imported) is not None
    )
    assert found == []


def test_the_game_package_check_finds_a_direct_import():
    modules = {name: None for name in ("games.selectors", "games.engine", "games.engine.views")}
    imports = imports_in("from games.engine.views import player_view", "games.selectors", modules)
    assert {_in_game_package(name) for name in imports} == {"games.engine"}


def test_every_registered_game_is_a_game_package_with_its_kind():
    from games import registry

    assert registry.REGISTERED[0].startswith("games.bahama_taxi")
    for module, kind in zip(registry.REGISTERED, registry.all(), strict=True):
        assert _in_game_package(module) is not None
        assert registry.get(kind.key) is kind


def test_every_append_goes_through_the_write_path():
    """The repository stores; `games/services/entries.py` alone calls its writes, so every
    entry gets its answer, its ratings and its notices."""
    writes = re.compile(r"repository\.(append|prepare|write|begin)\(")
    callers = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if path.relative_to(ROOT).as_posix() in (
                "games/services/entries.py",
                "games/repository.py",
            ):
                continue
            if writes.search(path.read_text()):
                callers.append(str(path.relative_to(ROOT)))
    assert callers == []


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
