"""The engine is pure Python (stdlib only: no Django, no clock, no I/O, no global random) and
typed: `mypy --strict` passes."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = {
    "__future__", "argparse", "array", "bisect", "collections", "dataclasses", "enum",
    "functools", "hashlib", "hmac", "json", "math", "sys", "typing",
    "games",  # only games.engine.rng, the shared generator (checked below)
}  # fmt: skip
FORBIDDEN = {"time", "datetime", "random", "os", "socket", "threading", "asyncio", "django"}


def engine_imports() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in resources.files("games.digit_code.engine").iterdir():
        if path.name.endswith(".py"):
            names = found.setdefault(path.name, set())
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                if isinstance(node, ast.Import):
                    names |= {alias.name for alias in node.names}
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names.add(node.module)
    return found


def test_the_engine_imports_the_stdlib_and_the_shared_generator_only():
    for name, modules in engine_imports().items():
        tops = {module.split(".")[0] for module in modules}
        assert tops <= ALLOWED and not tops & FORBIDDEN, (name, tops)
        assert {m for m in modules if m.startswith("games")} <= {"games.engine.rng"}, name
    # `sys` only for the command line's output
    users = {name for name, modules in engine_imports().items() if "sys" in modules}
    assert users <= {"simulate.py", "__main__.py"}


def test_the_engine_passes_mypy_strict():
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "games/digit_code/engine"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
