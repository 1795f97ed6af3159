"""Request values as the OpenAPI schema types them. DRF converts what it can: a string field
takes 5 (as "5"), an integer field "5", a boolean field 0, 1, "yes", "on" and "t". The schema
calls each of those invalid, so a client relying on them would break on any other server of
the schema, and a fuzzer sending them (tests/reliability/test_schema_fuzz.py) saw them
accepted. Here they are refused with the field's usual error (400 `invalid`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from rest_framework import serializers

if TYPE_CHECKING:
    # what JsonTypes is mixed into
    _Serializer = serializers.Serializer
else:
    _Serializer = object

# (field class, the JSON types its value may have, the field's error for another type); the
# first match wins, so subclasses come before their bases
_JSON_TYPES: tuple[tuple[type, tuple[type, ...], str], ...] = (
    (serializers.BooleanField, (bool,), "invalid"),
    (serializers.IntegerField, (int,), "invalid"),
    (serializers.FloatField, (int, float), "invalid"),
    (serializers.CharField, (str,), "invalid"),
    (serializers.ChoiceField, (str,), "invalid_choice"),
    (serializers.ListField, (list,), "not_a_list"),
)


def _wrong_type(field: serializers.Field, value: object) -> list[Any] | dict[str, Any] | None:
    """The field's error if `value` is not of its JSON type, else None."""
    for field_class, types, error in _JSON_TYPES:
        if isinstance(field, field_class):
            if isinstance(value, types) and not (bool not in types and isinstance(value, bool)):
                return None
            if isinstance(field, serializers.ChoiceField) and not all(
                isinstance(choice, str) for choice in field.choices
            ):
                return None
            try:
                field.fail(error, input=value, input_type=type(value).__name__)
            except serializers.ValidationError as refused:
                return refused.detail
    return None


class JsonTypes(_Serializer):
    """A mixin for the serializer of a JSON body: every field given has its schema's JSON
    type (null is left to the field's `allow_null`). A value of another type is that field's
    error, beside the other fields' errors."""

    def to_internal_value(self, data):
        wrong = {}
        if isinstance(data, Mapping):
            for name, field in self.fields.items():
                if not field.read_only and data.get(name) is not None:
                    error = _wrong_type(field, data[name])
                    if error is not None:
                        wrong[name] = error
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as refused:
            if not wrong or not isinstance(refused.detail, dict):
                raise
            raise serializers.ValidationError({**refused.detail, **wrong}) from refused
        if wrong:
            raise serializers.ValidationError(wrong)
        return value


class QueryBooleanField(serializers.BooleanField):
    """`true` or `false` in a query string (OpenAPI's form of a boolean parameter)."""

    def to_internal_value(self, data):
        if data in ("true", "false"):
            return data == "true"
        self.fail("invalid", input=data)
