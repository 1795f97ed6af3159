"""Paging for every list of the API: `limit` (1–100, default 50) and `offset` (0–1,000,000).

DRF's LimitOffsetPagination took any number: `?limit=99999999999999999999` reached the
database as an integer no column holds (a 500), and a limit it could not read (`-1`, `0`,
`abc`, `2.5`, empty) silently became the default. Here each is a whole number in ASCII
digits within its bounds, or a 400 `invalid` with the field's error; the bounds are the
OpenAPI schema's, and a parameter left out takes its default.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 1_000_000
_WHOLE_NUMBER = re.compile(r"[0-9]{1,7}")  # no bound here has more digits


def _whole_number(request, name: str, default: int, low: int, high: int, message) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    if _WHOLE_NUMBER.fullmatch(raw) is None or not low <= int(raw) <= high:
        raise ValidationError({name: [message % {"max": high}]})
    return int(raw)


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 100

    def get_limit(self, request):
        message = _("A whole number from 1 to %(max)s.")
        return _whole_number(
            request, self.limit_query_param, self.default_limit, 1, self.max_limit, message
        )

    def get_offset(self, request):
        message = _("A whole number from 0 to %(max)s.")
        return _whole_number(request, self.offset_query_param, 0, 0, MAX_OFFSET, message)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_limit)
                parameter["description"] = (
                    f"Items per page: 1 to {self.max_limit} (default {self.default_limit}); "
                    "anything else is a 400 `invalid`."
                )
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"].update(minimum=0, maximum=MAX_OFFSET)
                parameter["description"] = (
                    f"Items to skip: 0 to {MAX_OFFSET:,} (default 0); anything else is a 400 "
                    "`invalid`."
                )
        return parameters
