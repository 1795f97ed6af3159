"""`python manage.py error_codes`: docs/errors.md, from the code (tests/test_architecture.py
checks the committed page against it)."""

from django.core.management.base import BaseCommand
from django.utils import translation

from accounts import errors as accounts_errors
from games import errors as games_errors
from taxi_project import api_errors

HEADER = """# Error codes

Every refusal, over HTTP and in WebSocket `error` frames, is JSON `{"code", "message", ...}`:
switch on `code` (stable), show `message` (in the reader's language; it may change). Some
codes carry more fields: `errors` (field → problems, with `invalid` and `malformed_action`),
`clause` (the RULES.md clause an illegal action breaks), `current_version` (with
`stale_version`), `until` (with `account_suspended`), `per` and `limit` (with
`too_many_connections`: the cap reached, `account` or `address`, and how many may be open),
`limit` and `of` (with `too_many_tables`: `open` or `unfinished` tables, and how many).
The OpenAPI schema (`/api/schema/`) enumerates the same codes; `tests/test_architecture.py`
keeps this page, the schema and the code in step, and checks that every message is translated
into the five languages.

Where they live: `taxi_project/api_errors.py` (the platform's, and the one exception handler),
`accounts/errors.py`, `games/errors.py` (with the engines' codes, `games/engine/errors.py` and
`games/digit_code/engine/errors.py`, translated by each game's registration), each a `StrEnum`
of codes beside the exception classes that carry them.
WebSocket close codes are in [websocket.md](websocket.md). This page is made by
`python manage.py error_codes > docs/errors.md`.
"""


def page() -> str:
    engine = set(games_errors.engine_codes())
    games = games_errors.vocabulary()
    groups = [
        ("Platform (any endpoint; DRF's own codes in DRF's words)", api_errors.vocabulary()),
        ("Accounts", accounts_errors.vocabulary()),
        (
            "Games: tables, moves, chat, moderation, WebSocket frames",
            {code: found for code, found in games.items() if code not in engine},
        ),
        (
            "The rules engines (422: illegal now, with the rules' `clause`, RULES.md or "
            "RULES-digit-code.md; 400: malformed action or set-up)",
            {code: found for code, found in games.items() if code in engine},
        ),
    ]
    lines = [HEADER]
    with translation.override("en"):
        for title, vocabulary in groups:
            lines += [
                f"\n## {title}\n",
                "| code | status | default message |",
                "| --- | --- | --- |",
            ]
            for code, (status, message) in sorted(
                vocabulary.items(), key=lambda kv: (kv[1][0], kv[0])
            ):
                lines.append(f"| `{code}` | {status} | {str(message).replace('|', '/')} |")
    return "\n".join(lines) + "\n"


class Command(BaseCommand):
    help = "Print docs/errors.md: every error code, its status and default message."

    def handle(self, *args, **options):
        self.stdout.write(page(), ending="")
