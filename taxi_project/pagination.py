"""Paging for every list of the API: `limit` (1–100, default 50) and `offset` (0–1,000,000).

DRF's LimitOffsetPagination took any number: `?limit=99999999999999999999` reached the
database as an integer no column holds (a 500). Here a limit above the maximum is clamped to
it (as DRF does with `max_limit`), and an offset that is not a whole number in range is a 400
`invalid` with the field's error; both bounds are in the OpenAPI schema.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination

MAX_OFFSET = 1_000_000


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 100

    def get_offset(self, request):
        raw = request.query_params.get(self.offset_query_param)
        if raw is None:
            return 0
        if not raw.isdigit() or int(raw) > MAX_OFFSET:
            message = _("A whole number from 0 to %(max)s.") % {"max": MAX_OFFSET}
            raise ValidationError({self.offset_query_param: [message]})
        return int(raw)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.limit_query_param:
                parameter["schema"].update(minimum=1, maximum=self.max_limit)
            elif parameter["name"] == self.offset_query_param:
                parameter["schema"].update(minimum=0, maximum=MAX_OFFSET)
        return parameters
