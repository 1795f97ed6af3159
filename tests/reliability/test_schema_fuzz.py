"""schemathesis against /api/schema/ (the OpenAPI 3 schema drf-spectacular serves): generated
requests for every operation, valid and invalid, authenticated with a real token, through
Django's WSGI application in this process. Every response must be no 5xx, have the documented
content type, and match the documented schema for its status.

The number of examples per operation is bounded (FUZZ_EXAMPLES, default 25) so that the whole
run stays well under a minute; `bench/chaos.py --fuzz-examples N` runs the long version.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
)

from tests.players import Player, start_game

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
CHECKS = [not_a_server_error, content_type_conformance, response_schema_conformance]
SEEN = {"cases": 0, "5xx": 0}


def _served_schema() -> dict:
    """What GET /api/schema/ serves (SpectacularAPIView runs this generator), as a dict.

    Loaded at import, not through schemathesis's pytest fixture loader (`from_fixture`), which
    does not work with pytest 9; requests still go through the WSGI application."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


schema = schemathesis.openapi.from_dict(_served_schema())


@pytest.fixture
def wsgi_app(db, settings):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    from taxi_project.wsgi import application

    settings.ALLOWED_HOSTS = ["localhost", "testserver"]  # schemathesis's WSGI client: localhost
    # As Django's test client does: requests must not close the test's connection (its
    # transaction is the test's database).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield application
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def fuzzer(db):
    """The signed-in fuzzer, seated at a started game (ids 1… are then real games too)."""
    me, other = Player(), Player()
    start_game([me, other])
    return me


# games_stream stays open (an NDJSON stream): tests/api/test_stream.py drives it on a live server
@schema.exclude(operation_id="games_stream").parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same cases on every run: a failure reproduces
    suppress_health_check=list(HealthCheck),
)
def test_the_api_answers_every_generated_request_as_its_schema_says(case, fuzzer, wsgi_app):
    response = case.call(app=wsgi_app, headers={"Authorization": f"Token {fuzzer.token}"})
    SEEN["cases"] += 1
    SEEN["5xx"] += response.status_code >= 500
    case.validate_response(response, checks=CHECKS)


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    print(f"\nschemathesis: {SEEN['cases']} generated requests, {SEEN['5xx']} answered 5xx")
