"""Every error code a client can meet, from every app: the list the OpenAPI schema's error
`code` enumerates and docs/errors.md documents (a test keeps the three in step)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from accounts import errors as accounts_errors
from games import errors as games_errors
from taxi_project import api_errors

if TYPE_CHECKING:
    from taxi_project.api_errors import Message


def vocabulary() -> dict[str, tuple[int, Message]]:
    """code → (HTTP status, default message in the active language)."""
    return {
        **api_errors.vocabulary(),
        **accounts_errors.vocabulary(),
        **games_errors.vocabulary(),
    }


def codes() -> list[str]:
    return sorted(vocabulary())
