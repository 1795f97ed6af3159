"""A token socket's credentials checked in one statement (before each move) decide as the ORM's
two queries do: a live token, a revoked or expired one, and an account inactive, banned,
suspended, or suspended no longer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts import credentials
from accounts.models import DeviceToken, User

HOUR = timedelta(hours=1)

CASES = {
    "live": (lambda user, digest: None, None),
    "revoked": (lambda user, digest: DeviceToken.objects.filter(digest=digest).delete(), 4401),
    "expired": (
        lambda user, digest: DeviceToken.objects.filter(digest=digest).update(
            expiry=timezone.now() - HOUR
        ),
        4401,
    ),
    "expiring later": (
        lambda user, digest: DeviceToken.objects.filter(digest=digest).update(
            expiry=timezone.now() + HOUR
        ),
        None,
    ),
    "inactive": (
        lambda user, digest: User.objects.filter(pk=user.pk).update(is_active=False),
        4401,
    ),
    "banned": (
        lambda user, digest: User.objects.filter(pk=user.pk).update(banned_at=timezone.now()),
        4403,
    ),
    "suspended": (
        lambda user, digest: User.objects.filter(pk=user.pk).update(
            suspended_until=timezone.now() + HOUR
        ),
        4403,
    ),
    "suspended no longer": (
        lambda user, digest: User.objects.filter(pk=user.pk).update(
            suspended_until=timezone.now() - HOUR
        ),
        None,
    ),
}


@pytest.mark.postgres
@pytest.mark.parametrize("case", list(CASES))
def test_one_statement_decides_as_the_orm(make_player, case):
    player, other = make_player(), make_player()
    change, close_code = CASES[case]
    token = DeviceToken.objects.get(user=player.user)
    change(player.user, token.digest)
    fast = credentials._token_refusal(user_id=player.user.pk, token=player.token)
    assert fast == credentials._refusal(
        user_id=player.user.pk, token=player.token, session_key=None
    )
    assert (fast[0] if fast else None) == close_code
    assert (
        credentials.socket_refusal(user_id=player.user.pk, token=player.token, session_key=None)
        == fast
    )
    # another account's token is no credential for this one
    assert credentials._token_refusal(user_id=player.user.pk, token=other.token) == (
        credentials._refusal(user_id=player.user.pk, token=other.token, session_key=None)
    )
    assert credentials._token_refusal(user_id=player.user.pk, token=other.token) is not None
