"""The move body's fast check (games.serializers.move_data) against MoveSerializer: whatever
the fast check accepts, the serializer accepts with the same values, and whatever the
serializer refuses still gets its field errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.exceptions import ValidationError

from games.serializers import MAX_INT, MoveSerializer, move_data

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3),
    max_leaves=8,
)
keys = st.from_regex(r"[A-Za-z0-9_.:-]{1,64}", fullmatch=True) | st.text(max_size=70)
versions = st.integers(min_value=-2, max_value=MAX_INT + 2) | json_values
bodies = st.fixed_dictionaries(
    {},
    optional={
        "action": st.dictionaries(st.text(), json_values, max_size=4) | json_values,
        "version": versions,
        "idempotency_key": keys | json_values,
        "extra": json_values,
    },
)


def serializer_result(body):
    serializer = MoveSerializer(data=body)
    return dict(serializer.validated_data) if serializer.is_valid() else None


@settings(max_examples=400, deadline=None)
@given(bodies)
def test_the_fast_check_agrees_with_the_serializer(body):
    expected = serializer_result(body)
    try:
        got = move_data(body)
    except ValidationError:
        assert expected is None
    else:
        assert expected is not None and got == expected


def test_a_well_formed_move_passes_and_a_malformed_one_gets_field_errors():
    body = {"action": {"type": "step", "to": "9H"}, "version": 3, "idempotency_key": "k-1"}
    assert move_data(body) == body
    with pytest.raises(ValidationError) as refused:
        move_data({"action": [], "version": -1, "idempotency_key": "no spaces"})
    assert set(refused.value.detail) == {"action", "version", "idempotency_key"}
