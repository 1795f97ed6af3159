"""JSON request bodies and WebSocket frames, parsed with a bound on their nesting.

Python's JSON decoder recurses once per level of nesting: a 2 KB body of 1,000 nested arrays
raises RecursionError, which is no ValueError and was answered 500 (or killed a socket). No
request of ours nests deeper than a few levels, so anything deeper than MAX_DEPTH is refused
as malformed, before any code walks it. The API takes JSON only: a form or multipart body is
415 `unsupported_media_type` (no endpoint takes files).
"""

from __future__ import annotations

import json

from django.utils.translation import gettext_lazy as _
from rest_framework import parsers
from rest_framework.exceptions import ParseError

MAX_DEPTH = 32
TOO_DEEP = _("JSON nested more than %(max)s levels deep is refused.")


class TooDeep(ValueError):
    pass


def check_depth(value, limit: int = MAX_DEPTH):
    """`value` if no list or object in it is nested more than `limit` deep, else TooDeep."""
    level = [value]
    for _depth in range(limit + 1):
        level = [
            child
            for item in level
            if isinstance(item, dict | list)
            for child in (item.values() if isinstance(item, dict) else item)
        ]
        if not level:
            return value
    raise TooDeep(str(TOO_DEEP % {"max": limit}))


def loads(text: str | bytes):
    """`json.loads` that raises ValueError (TooDeep) rather than RecursionError."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(str(TOO_DEEP % {"max": MAX_DEPTH})) from None
    return check_depth(value)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, refusing bodies nested deeper than MAX_DEPTH (400 `parse_error`)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return check_depth(super().parse(stream, media_type, parser_context))
        except RecursionError:
            raise ParseError(TOO_DEEP % {"max": MAX_DEPTH}) from None
        except TooDeep as error:
            raise ParseError(str(error)) from None
