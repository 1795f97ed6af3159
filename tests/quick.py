"""`--quick` (`python3 dev.py test --quick`): the subset to run after each change, in under a
minute on a quiet machine; the whole suite is what CI runs.

It holds every rule test of both engines (Bahama Taxi's and Digit Code's, without the random
soak and property runs, the bot matches, the simulator and the fairness tool, which play
hundreds of games), whole games and refused moves through the HTTP API, the move body's
limits, the log's storage, each move pushed to the game's sockets, the OpenAPI schema, the
architecture checks (layers, and every error code in the schema, docs/errors.md and the
translations) and the lock files' checks. Chosen by measuring (`--durations`).

Loaded by `-p tests.quick` (pyproject.toml) so that pytest knows the option. A listed path
that no longer exists stops the run rather than shrinking the subset unseen.

How to run which tests (`dev.py test` passes every argument on to pytest):

    python3 dev.py test --quick              this subset, in one process (under a minute)
    python3 dev.py test tests/api/test_games.py -x
                                             a path: just that, in one process (-s, --pdb work)
    python3 dev.py test                      the whole suite, as CI runs it, on two processes:
                                             pytest -n 2 (pytest-xdist; pyproject.toml adds
                                             --dist loadfile): whole files per process, the
                                             slowest first (tests/conftest.py)
    python3 dev.py test -n 4                 the whole suite on more processes (more cores)
    python3 dev.py test -n 0                 the whole suite in one process
    python3 dev.py test --durations=60       ... and the slowest test phases at the end

Each process has its own test database and Redis prefix, so two of them (or two runs) never see
each other's rows or pushes. Tests that write what a whole module reads share it through
`module_db` (tests/conftest.py) rather than making it again per test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

QUICK = (
    "tests/engine",
    "tests/digit_code",
    "tests/api/test_games.py",
    "tests/api/test_move_body.py",
    "tests/api/test_repository.py",
    "tests/api/test_schema.py",
    "tests/test_architecture.py",
    "tests/ws/test_consumers.py",
    "tests/test_dependencies.py",
)
# inside QUICK, but seconds to minutes each
NOT_QUICK = (
    "tests/engine/test_soak.py",
    "tests/engine/test_properties.py",
    "tests/engine/test_bots.py",
    "tests/engine/test_simulate.py",
    "tests/digit_code/test_properties.py",
    "tests/digit_code/test_bots.py",
    "tests/digit_code/test_simulate.py",
    "tests/digit_code/test_fairness_tool.py",
    "tests/digit_code/test_engine_purity.py",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--quick",
        action="store_true",
        help="run only the fast subset (tests/quick.py): engine rules, moves over HTTP, schema",
    )


def pytest_configure(config: pytest.Config) -> None:
    if not config.getoption("quick"):
        return
    missing = [p for p in (*QUICK, *NOT_QUICK) if not (config.rootpath / p).exists()]
    if missing:
        raise pytest.UsageError(f"tests/quick.py names {', '.join(missing)}: no such path")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if not config.getoption("quick"):
        return None
    try:
        path = collection_path.relative_to(config.rootpath)
    except ValueError:
        return None
    quick = [Path(p) for p in QUICK]
    if any(path == Path(p) or Path(p) in path.parents for p in NOT_QUICK):
        return True
    if any(path == q or q in path.parents or path in q.parents for q in quick):
        return None  # in the subset, or a folder on the way to it
    return True
