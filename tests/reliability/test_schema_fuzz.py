"""schemathesis against /api/schema/ (the OpenAPI 3 schema drf-spectacular serves): generated
requests for every operation, valid and invalid, authenticated with a real token, through
Django's WSGI application in this process, checked by every check schemathesis has: no 5xx,
the documented status codes, content types and headers, a body that matches the documented
schema for its status, invalid data refused, authentication enforced where declared, methods
not in the schema refused, and so on.

One check is sharpened rather than taken as it is: `positive_data_acceptance` wants every
schema-valid request accepted, but some rules cannot be said in a JSON schema (a deadline in
the future, a legal move, a push endpoint the server can reach, a report naming whom it
reports, a password the validators accept). Their refusals carry codes of their own, listed
for the operation; what must never happen is a schema-valid request refused as malformed
(`schema_valid_data_is_not_refused_as_malformed`).

The number of examples per operation is bounded (FUZZ_EXAMPLES, default 25: about 45 s for
the whole run on PostgreSQL, on a shared 2-core machine) so that CI runs it every time;
`FUZZ_EXAMPLES=300` (about 5 minutes) runs the long version.
"""

from __future__ import annotations

import json
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance

from tests.players import Player, finished_by_autopilot, start_game

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
SEEN = {"cases": 0, "5xx": 0}

# Codes that say "this is not what the schema describes": never the answer to a request the
# schema calls valid, except for the rules the schema states in words only, each a field error
# of `invalid` on its field:
MALFORMED = {"invalid", "parse_error", "bad_request", "malformed_action", "unsupported_media_type"}
RULES_IN_WORDS = {
    "password": "the server's password validators",
    "new_password": "the server's password validators",
    "username": "Unicode letters and digits, @ . + - _ (no portable schema pattern for it)",
    "display_name": "no invisible characters, at most 3 combining marks in a row",
    "text": "printable characters",
    "notes": "the game's own notes (RULES-digit-code.md C2; its registration validates them)",
    "bots": "fewer computer opponents than places (a rule between two fields)",
    "options": "Bahama Taxi's options as one object or as three fields, not both (between fields)",
    "cursor": "a cursor the list made (opaque: taxi_project/pagination.py)",
    "offset": "not with `cursor` (a rule between two parameters)",
}


def _string_rule(value) -> bool:
    """DRF's rules for every string field: no NUL character; surrounding whitespace is
    stripped, and then it may not be blank."""
    return isinstance(value, str) and ("\x00" in value or not value.strip())


@schemathesis.check
def schema_valid_data_is_not_refused_as_malformed(ctx, response, case):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive or response.status_code < 400:
        return None
    try:
        body = json.loads(response.content)
    except ValueError:
        return None  # content_type_conformance and response_schema_conformance say why
    if not isinstance(body, dict) or body.get("code") not in MALFORMED:
        return None  # a rule of its own, with its own code, listed for the operation
    errors = body.get("errors")
    if body["code"] != "invalid" or not errors or not _explained(errors, case.body):
        raise AssertionError(f"a request the schema calls valid was refused: {body}")
    return None


def _explained(errors: dict, sent) -> bool:
    """Every field error is one of the rules in words (in a nested object too)."""
    sent = sent if isinstance(sent, dict) else {}
    for field, error in errors.items():
        if field in RULES_IN_WORDS or _string_rule(sent.get(field)):
            continue
        if not (isinstance(error, dict) and _explained(error, sent.get(field))):
            return False
    return True


def _served_schema() -> dict:
    """What GET /api/schema/ serves (SpectacularAPIView runs this generator), as a dict.

    Loaded at import, not through schemathesis's pytest fixture loader (`from_fixture`), which
    does not work with pytest 9; requests still go through the WSGI application."""
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def _application():
    from taxi_project.wsgi import application

    return application


schema = schemathesis.openapi.from_dict(_served_schema())
schema.app = _application()  # every request through it, the checks' own probes too
CHECKS = {
    "excluded_checks": [positive_data_acceptance],
    "additional_checks": [schema_valid_data_is_not_refused_as_malformed],
}
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same cases on every run: a failure reproduces
    suppress_health_check=list(HealthCheck),
)


@pytest.fixture
def wsgi_app(db, settings):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    settings.ALLOWED_HOSTS = ["localhost", "testserver"]  # schemathesis's WSGI client: localhost
    # As Django's test client does: requests must not close the test's connection (its
    # transaction is the test's database).
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schema.app
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def fuzzer(db):
    """The signed-in fuzzer, seated at a started game (ids 1… are then real games too)."""
    me, other = Player(), Player()
    start_game([me, other])
    return me


@pytest.fixture
def spectator(committed_db, settings):
    """The signed-in fuzzer beside a finished game only: a stream of it ends (a running
    game's stream stays open, which a WSGI call would wait on for ever). Committed: the
    stream reads on a thread of its own, with a connection of its own."""
    settings.ALLOWED_HOSTS = ["localhost", "testserver"]
    finished_by_autopilot([Player(), Player()])
    return Player()


def _fuzzed(case, player) -> None:
    response = case.call_and_validate(headers={"Authorization": f"Token {player.token}"}, **CHECKS)
    SEEN["cases"] += 1
    SEEN["5xx"] += response.status_code >= 500


@schema.exclude(operation_id="games_stream").parametrize()
@FUZZ
def test_the_api_answers_every_generated_request_as_its_schema_says(case, fuzzer, wsgi_app):
    _fuzzed(case, fuzzer)


# in this process, through WSGI, Django reads the whole (finished) stream before answering
@pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume asynchronous iterators")
@schema.include(operation_id="games_stream").parametrize()
@FUZZ
def test_the_stream_of_a_finished_game_answers_as_its_schema_says(case, spectator):
    _fuzzed(case, spectator)


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    print(f"\nschemathesis: {SEEN['cases']} generated requests, {SEEN['5xx']} answered 5xx")
