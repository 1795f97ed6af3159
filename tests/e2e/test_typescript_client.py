"""A client in another ecosystem, generated from the schema the live server serves, plays a
whole game of each game the server hosts: tests/clients (openapi-typescript makes the types,
openapi-fetch the calls, both pinned by package-lock.json) signs two players up; opens a Bahama
Taxi table giving only the required field and plays every move from the legal actions of the
typed view; opens a Digit Code table naming its `game`, asks the questions its typed offers
list and guesses the code the public answers leave; follows each game's NDJSON stream to its
end and pages "my games" by cursor (tests/clients/src/play.ts).

The client is type-checked strict (`tsc --noEmit`) against the types generated from the
schema, so a schema a generator cannot type (a union reduced to `Omit<…, "type">`, a field
with a default made required, an untyped body) fails here before a move is made."""

from __future__ import annotations

import json
import subprocess
import urllib.request

import pytest

from tests.clients import npm
from tests.e2e.server import current_database_url, live_server

pytestmark = pytest.mark.slow


def _run(*command: str, timeout: int = 300) -> str:
    done = subprocess.run(
        command, cwd=npm.CLIENTS, capture_output=True, text=True, timeout=timeout, env=npm.env()
    )
    assert done.returncode == 0, f"{' '.join(command)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def live(django_db_setup):
    with live_server(database_url=current_database_url(), workers=1) as server:
        yield server


def test_a_typescript_client_generated_from_the_schema_plays_each_game(live, committed_db):
    tools = npm.installed()
    generated = npm.CLIENTS / "generated"
    generated.mkdir(exist_ok=True)
    with urllib.request.urlopen(live.url("/api/schema/?format=json"), timeout=30) as response:
        (generated / "schema.json").write_bytes(response.read())
    _run(str(tools / "openapi-typescript"), "generated/schema.json", "-o", "generated/schema.d.ts")
    _run(str(tools / "tsc"), "--noEmit", "-p", "tsconfig.json")  # strict: the schema types it
    _run(str(tools / "tsc"), "-p", "tsconfig.json")

    played = _run("node", "build/src/play.js", live.url("").rstrip("/"), timeout=600)

    summary = json.loads(played.strip().splitlines()[-1])
    assert summary["moves"].get("step") and summary["moves"].get("stop"), summary
    assert summary["version"] > 10
    digit_code = summary["digit_code"]
    assert digit_code["status"] == "finished", digit_code
    assert digit_code["asked"] > 0 and digit_code["guessed"] >= 1, digit_code
    assert digit_code["winner"] is not None, digit_code  # G2: the code the answers left was right
