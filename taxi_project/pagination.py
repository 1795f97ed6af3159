"""Paging for every list of the API: opaque cursors over a stable order, and the deprecated
`limit`/`offset`.

A list whose rows come and go while a client pages (games end, tables fill, new games start)
pages by cursor (DRF's CursorPagination): `?cursor=` is where the last page ended, so a row
that appears or leaves elsewhere in the list never makes another row skipped or repeated, and
every page reads through an index from that position on, however deep (an offset made the
database read and drop every row before it). The answer has `next` and `previous` (URLs, null
at an end) and `results`; `count` only with `?count=true`, counted up to MAX_COUNT
(`count_capped` says when there are more): counting reads the whole list.

`offset` (with `limit`) still works, in the list's old order with an exact `count`, until
SUNSET_AT; its answers say so with the `Deprecation` (RFC 9745) and `Sunset` (RFC 8594)
headers. docs/api.md says how a client moves over.

Every parameter is checked as the schema states it: `limit` 1–100 (default 50), `offset`
0–1,000,000, a whole number in ASCII digits; `count` true or false; a cursor this server
made. Anything else is a 400 `invalid` naming it (DRF would take a limit it cannot read as
the default, and answer a cursor it cannot read with a 404).
"""

from __future__ import annotations

import re
from base64 import b64decode, b64encode
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib import parse

from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as ModelValidationError
from django.utils.http import http_date
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework import pagination
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

MAX_OFFSET = 1_000_000
MAX_COUNT = 10_000
MAX_CURSOR = 200  # characters; the server's own are well under
MAX_PLACE = 10**12
DEFAULT_LIMIT = 50
MAX_LIMIT = 100
# `offset` answers with these from the day cursors came; it may go after the sunset
DEPRECATED_AT = datetime(2026, 12, 1, tzinfo=UTC)
SUNSET_AT = datetime(2027, 6, 1, tzinfo=UTC)

_WHOLE_NUMBER = re.compile(r"[0-9]{1,7}")  # no parameter's bound has more digits
_DIGITS = re.compile(r"[0-9]{1,13}")  # nor a cursor's


def _whole_number(request, name: str, default: int, low: int, high: int, message) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if _WHOLE_NUMBER.fullmatch(raw) is None or not low <= int(raw) <= high:
        raise ValidationError({name: [message % {"max": high}]})
    return int(raw)


def _limit(request) -> int:
    message = _("A whole number from 1 to %(max)s.")
    return _whole_number(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT, message)


def deprecated(response):
    """`response` marked as the answer of a deprecated form of its request (docs/api.md)."""
    response["Deprecation"] = f"@{int(DEPRECATED_AT.timestamp())}"
    response["Sunset"] = http_date(SUNSET_AT.timestamp())
    return response


class Pagination(pagination.LimitOffsetPagination):
    """The deprecated `?limit=&offset=` paging, with its exact `count`."""

    default_limit = DEFAULT_LIMIT
    max_limit = MAX_LIMIT

    def get_limit(self, request):
        return _limit(request)

    def get_offset(self, request):
        message = _("A whole number from 0 to %(max)s.")
        return _whole_number(request, self.offset_query_param, 0, 0, MAX_OFFSET, message)

    def get_paginated_response(self, data):
        return deprecated(super().get_paginated_response(data))


class CursorPagination(pagination.CursorPagination):
    """DRF's cursor paging, ordered by `ordering` (its first field unchanging and unique, or
    nearly: ties are told apart by an offset in the cursor), with a strict `limit`, the
    optional bounded `count`, and `first`: the 1-based place of the page's first row in the
    list (a leaderboard's rank), carried in the cursor."""

    page_size = DEFAULT_LIMIT
    page_size_query_param = "limit"
    max_page_size = MAX_LIMIT
    template = None  # the browsable API draws no page controls

    def __init__(self, ordering: str | tuple[str, ...]):
        self.ordering = ordering

    def get_page_size(self, request):
        return _limit(request)

    def paginate_queryset(self, queryset, request, view=None):
        self.count = None
        if _flag(request, "count"):
            self.count = queryset.order_by()[: MAX_COUNT + 1].count()
        self._model = queryset.model
        page = super().paginate_queryset(queryset, request, view) or []
        if self.cursor is None:
            self.first = 1
        elif self.cursor.reverse:  # the cursor's place is the row after this page
            self.first = max(self._place - len(page), 1)
        else:
            self.first = self._place
        return page

    def get_paginated_response(self, data):
        body: dict[str, Any] = {"next": self.get_next_link(), "previous": self.get_previous_link()}
        if self.count is not None:
            body["count"] = min(self.count, MAX_COUNT)
            body["count_capped"] = self.count > MAX_COUNT
        body["results"] = data
        return Response(body)

    # The cursor: DRF's offset, direction and position, and the place of the row it points to.

    def encode_cursor(self, cursor):
        tokens = {"n": str(self.first if cursor.reverse else self.first + len(self.page or []))}
        if cursor.offset != 0:
            tokens["o"] = str(cursor.offset)
        if cursor.reverse:
            tokens["r"] = "1"
        if cursor.position is not None:
            tokens["p"] = cursor.position
        encoded = b64encode(parse.urlencode(tokens).encode()).decode("ascii")
        return replace_query_param(str(self.base_url), self.cursor_query_param, encoded)

    def decode_cursor(self, request):
        encoded = request.query_params.get(self.cursor_query_param)
        if encoded is None:
            return None
        refused = ValidationError({self.cursor_query_param: [_("Not a cursor of this list.")]})
        if not 0 < len(encoded) <= MAX_CURSOR:
            raise refused
        try:
            tokens = parse.parse_qs(
                b64decode(encoded.encode("ascii"), validate=True).decode("ascii"),
                keep_blank_values=True,
                strict_parsing=True,
            )
            offset = _bounded(tokens, "o", 0, 0, self.offset_cutoff)
            place = _bounded(tokens, "n", 1, 1, MAX_PLACE)
            reverse = _bounded(tokens, "r", 0, 0, 1) == 1
            position = tokens.get("p", [None])[0]
            if position is not None:
                field = self._model._meta.get_field(self.ordering[0].lstrip("-"))
                field.clean(position, None)  # a value of the ordering's column, or refused
        except (ValueError, TypeError, OverflowError, ModelValidationError, FieldDoesNotExist):
            raise refused from None
        self._place = place
        # the stubs type a position as int; DRF's own are strings, as here
        return pagination.Cursor(offset=offset, reverse=reverse, position=position)  # type: ignore[arg-type]


def _bounded(tokens: dict, name: str, default: int, low: int, high: int) -> int:
    values = tokens.get(name)
    if values is None:
        return default
    if len(values) != 1 or _DIGITS.fullmatch(values[0]) is None:
        raise ValueError(name)
    if not low <= int(values[0]) <= high:
        raise ValueError(name)
    return int(values[0])


def _flag(request, name: str) -> bool:
    raw = request.query_params.get(name)
    if raw is None:
        return False
    if raw not in ("true", "false"):
        raise ValidationError({name: [_("true or false.")]})
    return raw == "true"


def paginate(
    view,
    request,
    queryset,
    *,
    ordering: str | tuple[str, ...],
    render: Callable[[list, int], list],
    legacy=None,
) -> Response:
    """A page of `queryset`: by cursor in `ordering`, or, with `offset` (deprecated), the old
    limit/offset page of `legacy` (`queryset` in the list's old order). `render(rows, first)`
    makes the results, `first` being the 1-based place of the first row."""
    if "offset" in request.query_params:
        if "cursor" in request.query_params:
            raise ValidationError({"offset": [_("Either a cursor or an offset, not both.")]})
        _flag(request, "count")  # checked; an offset's page always has its count
        offset_pages = Pagination()
        rows = offset_pages.paginate_queryset(
            queryset if legacy is None else legacy, request, view=view
        )
        first = (offset_pages.offset or 0) + 1
        return offset_pages.get_paginated_response(render(rows or [], first))
    pages = CursorPagination(ordering)
    rows = pages.paginate_queryset(queryset, request, view=view)
    return pages.get_paginated_response(render(rows or [], pages.first))


def schema_parameters() -> list[OpenApiParameter]:
    """The paging parameters of every list, for the OpenAPI schema."""
    return [
        OpenApiParameter(
            "cursor",
            str,
            description="where to go on from: a page's `next` or `previous` carries it (opaque; "
            "one this list did not make is a 400 `invalid`). Left out: the first page.",
        ),
        OpenApiParameter(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            description=f"Items per page: 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}); anything "
            "else is a 400 `invalid`.",
        ),
        OpenApiParameter(
            "count",
            bool,
            description=f"true: the page says how many items the list holds (`count`, counted "
            f"up to {MAX_COUNT:,}; `count_capped` when there are more). Costs a count of the "
            "list: ask once, not on every page.",
        ),
        OpenApiParameter(
            "offset",
            {"type": "integer", "minimum": 0, "maximum": MAX_OFFSET},
            deprecated=True,
            description=f"Deprecated (until {SUNSET_AT:%Y-%m-%d}; answers carry `Deprecation` "
            "and `Sunset`): items to skip, in the list's old order, with an exact `count`; "
            "not with `cursor`. Use `cursor`.",
        ),
    ]


DEPRECATION_HEADERS = [
    OpenApiParameter(
        "Deprecation",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description="on answers to a deprecated form of the request (`offset`): when it was "
        "deprecated, `@<Unix time>` (RFC 9745)",
    ),
    OpenApiParameter(
        "Sunset",
        str,
        OpenApiParameter.HEADER,
        response=[200],
        description="with `Deprecation`: the HTTP date after which that form may go (RFC 8594)",
    ),
]
