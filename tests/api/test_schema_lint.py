"""The schema lints clean: Redocly's recommended rules (`redocly lint`, the version pinned in
tests/clients/package-lock.json) find no error and no warning in the schema the server serves.

What they hold it to is what generators need: `nullable` only beside a `type`, every operation
with its `security` (`[]` for the public ones), a server, a licence, a 4XX on every
operation, no component left unused, every `$ref` resolving."""

from __future__ import annotations

import json
import subprocess

import pytest

from tests.clients import npm

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(django_db_blocker, tmp_path_factory):
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.renderers import OpenApiJsonRenderer

    with django_db_blocker.unblock():
        schema = SchemaGenerator().get_schema(request=None, public=True)
    path = tmp_path_factory.mktemp("schema") / "schema.json"
    path.write_bytes(OpenApiJsonRenderer().render(schema))  # as /api/schema/?format=json
    return path


def _lint(path) -> dict:
    done = subprocess.run(
        [str(npm.installed() / "redocly"), "lint", str(path), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        env=npm.env(),
    )
    start = done.stdout.find("{")
    assert start >= 0, done.stdout + done.stderr
    return json.loads(done.stdout[start:])


def test_redocly_recommended_finds_nothing_in_the_served_schema(served):
    report = _lint(served)
    problems = [
        f"{p['severity']} {p['ruleId']}: {p['message']} at {p['location'][0]['pointer']}"
        for p in report["problems"]
    ]
    assert report["totals"]["errors"] == 0 and report["totals"]["warnings"] == 0, problems


def test_the_linter_does_find_what_it_is_there_for(served, tmp_path):
    """The check can fail: the schema as drf-spectacular left it (no servers, nullable
    unions without a type) is refused."""
    schema = json.loads(served.read_text())
    schema["servers"] = []
    schema["components"]["schemas"]["GameSummary"]["properties"]["result"].pop("type")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(schema))
    rules = {p["ruleId"] for p in _lint(broken)["problems"]}
    assert {"no-empty-servers", "nullable-type-sibling"} <= rules
