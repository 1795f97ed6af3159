"""The OpenAPI schema says what the server does: generated without a single drf-spectacular
warning, one component per response shape, descriptions that match the behaviour.

A warning means the schema may say something the API does not do: two serializers of one
name ("ProfileSerializer" in the accounts API and in the players' API) become one component,
and one of the two operations is then described by the other's shape. `manage.py spectacular
--fail-on-warn` fails on any warning; it runs in a process of its own, so that no schema built
earlier by another test hides or adds one.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from drf_spectacular.generators import SchemaGenerator

ROOT = Path(__file__).resolve().parents[2]


def test_the_schema_is_generated_without_a_warning(tmp_path):
    generated = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--fail-on-warn", "--validate"]
        + ["--file", str(tmp_path / "schema.yaml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert generated.returncode == 0, generated.stderr
    assert "Warning" not in generated.stderr, generated.stderr


def test_a_players_profile_and_mine_are_two_components(db):
    schema = SchemaGenerator().get_schema(request=None, public=True)

    def answer(path: str) -> str:
        ok = schema["paths"][path]["get"]["responses"]["200"]
        return ok["content"]["application/json"]["schema"]["$ref"]

    mine, player = answer("/api/v1/me"), answer("/api/v1/players/{user_id}")
    assert mine == "#/components/schemas/Profile"
    assert player == "#/components/schemas/PlayerProfile"
    assert "email" not in schema["components"]["schemas"]["PlayerProfile"]["properties"]


def test_the_password_change_is_described_as_it_behaves(db):
    """The calling device keeps its token (tests/api/test_accounts.py pins the behaviour):
    the description says so, and no longer that the caller's token is revoked."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    described = schema["paths"]["/api/v1/me/password"]["post"]["description"]

    assert "keeps that token" in described and "the one it sent" in described
    assert "other device's token is revoked" in described
    assert "old token is revoked" not in described
