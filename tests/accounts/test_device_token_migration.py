"""Migration 0007 (issue 22): each user's one DRF token becomes a device token with the same
key, so apps signed in before the change stay signed in; the key is no longer stored."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from rest_framework.test import APIClient

BEFORE = [
    ("accounts", "0006_display_name_skeleton"),
    ("authtoken", "0004_alter_tokenproxy_options"),
]
AFTER = [("accounts", "0007_device_token")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_a_token_from_before_still_signs_its_app_in_and_is_stored_hashed():
    old_apps = migrate(BEFORE)
    try:
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
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert client.get("/api/v1/me").json()["username"] == "ana"
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
