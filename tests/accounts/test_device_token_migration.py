"""Migration 0007: each user's one DRF token becomes a device token with the same
key, so apps signed in before the change stay signed in; the key is no longer stored."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.migrations import migrate, migrate_to_latest, migrated_back

BEFORE = [
    ("accounts", "0006_display_name_skeleton"),
    ("authtoken", "0004_alter_tokenproxy_options"),
]
AFTER = [("accounts", "0007_device_token")]


@pytest.mark.django_db(transaction=True)
def test_a_token_from_before_still_signs_its_app_in_and_is_stored_hashed():
    with migrated_back(BEFORE) as old_apps:
        User = old_apps.get_model("accounts", "User")
        Token = old_apps.get_model("authtoken", "Token")
        user = User.objects.create(username="ana", display_name="Ana")
        key = "0123456789abcdef0123456789abcdef01234567"
        Token.objects.create(key=key, user=user)

        new_apps = migrate(AFTER)
        DeviceToken = new_apps.get_model("accounts", "DeviceToken")

        stored = DeviceToken.objects.get(user_id=user.pk)
        assert stored.digest != key and key not in stored.digest
        assert stored.token_key == key[:15] and stored.expiry is not None
        assert not new_apps.get_model("authtoken", "Token").objects.exists()
        migrate_to_latest()
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert client.get("/api/v1/me").json()["username"] == "ana"
