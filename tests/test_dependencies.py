"""What `python3 dev.py serve` installs is what runs: the runtime code imports only the
standard library, itself, and what requirements/runtime.txt pins, and no test tool is among
those pins. The three lock files agree with each other and with pyproject.toml (dev.py and
the Dockerfile install them with --no-deps: a package missing from one is missing, full stop)."""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_PACKAGES = ("taxi_project", "accounts", "games")
LOCKS = {"runtime": (), "test": ("test",), "bench": ("test", "bench")}


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(lock: str) -> dict[str, str]:
    text = (ROOT / "requirements" / f"{lock}.txt").read_text()
    found = re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", text, re.M)
    return {normalized(name): version for name, version in found}


def imports_of_the_runtime_code() -> dict[str, str]:
    """Top-level module -> one place that imports it, over every module of the runtime
    packages (imports inside functions included)."""
    found: dict[str, str] = {}
    for package in RUNTIME_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def modules_the_settings_load() -> dict[str, str]:
    """Top-level modules that settings name as dotted paths (apps, middleware, backends, the
    log formatter): Django imports those without an import statement in our code."""
    named = {f"INSTALLED_APPS {app}": app for app in settings.INSTALLED_APPS}
    named |= {f"MIDDLEWARE {m}": m for m in settings.MIDDLEWARE}
    for name, formatter in settings.LOGGING["formatters"].items():
        if "()" in formatter:
            named[f"LOGGING formatter {name}"] = formatter["()"]
    for setting in ("TEMPLATES", "CACHES", "CHANNEL_LAYERS", "STORAGES"):
        entries = getattr(settings, setting, {})
        for entry in entries if isinstance(entries, list) else entries.values():
            named[f"{setting} {entry['BACKEND']}"] = entry["BACKEND"]
    return {path.split(".")[0]: where for where, path in named.items()}


def test_the_runtime_code_needs_only_what_the_runtime_lock_installs():
    runtime = pins("runtime")
    distributions = packages_distributions()
    outside = {}
    for module, where in (imports_of_the_runtime_code() | modules_the_settings_load()).items():
        if module in sys.stdlib_module_names or module in RUNTIME_PACKAGES:
            continue
        owners = {normalized(d) for d in distributions.get(module, ())}
        if not owners & set(runtime):
            outside[module] = (where, sorted(owners) or "no installed distribution")
    assert outside == {}


def test_serve_installs_no_test_tool():
    test_tools = {"pytest", "pytest-django", "playwright", "daphne", "hypothesis", "schemathesis"}
    assert test_tools & set(pins("runtime")) == set()
    assert test_tools <= set(pins("test"))


def test_each_lock_holds_the_one_before_it_unchanged():
    for smaller, larger in (("runtime", "test"), ("test", "bench")):
        big = pins(larger)
        differ = {
            name: (v, big.get(name)) for name, v in pins(smaller).items() if big.get(name) != v
        }
        assert differ == {}, f"requirements/{larger}.txt against {smaller}.txt"


def test_every_dependency_pyproject_names_is_pinned():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for lock, extras in LOCKS.items():
        wanted = list(project["dependencies"])
        for extra in extras:
            wanted += project["optional-dependencies"][extra]
        names = {normalized(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", r).group()) for r in wanted}
        assert names - set(pins(lock)) == set(), f"run `python3 dev.py lock`: {lock}.txt"
    # an extra no lock holds would be installed by no command (dev.py LOCKS)
    assert set(project["optional-dependencies"]) == {"test", "bench"}
