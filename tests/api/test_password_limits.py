"""Password guessing where a session is already open or the admin's form is used:
`POST /api/v1/me/password` (old-password guesses) and `/admin/login/` are limited per
account and per client address."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import DeviceToken, User

PASSWORD = "/api/v1/me/password"
ADMIN_LOGIN = "/admin/login/"
PASSWORD_OK = "correct horse battery staple"
NEW_PASSWORD = "a quieter horse, 42 hooves"
LIMIT = 3


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "password_change": f"{LIMIT}/hour",
            "admin_login": f"{LIMIT}/hour",
        },
    }
    cache.clear()  # the counts live in the cache, which outlives a test
    yield
    cache.clear()


def user(username: str, **extra) -> User:
    return User.objects.create_user(username=username, password=PASSWORD_OK, **extra)


def api_client(account: User, *, address: str) -> APIClient:
    client = APIClient(REMOTE_ADDR=address)
    key = DeviceToken.objects.create(user=account)[1]
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def change(client: APIClient, old_password: str):
    return client.post(
        PASSWORD, {"old_password": old_password, "new_password": NEW_PASSWORD}, format="json"
    )


def assert_throttled(response) -> None:
    body = response.json()
    assert response.status_code == 429, body
    assert body["code"] == "throttled", body
    assert body["message"]
    assert int(response["Retry-After"]) > 0


def test_old_password_guesses_are_limited_per_account(db):
    ana = user("ana")
    # a stolen token used from many addresses
    for i in range(LIMIT):
        response = change(api_client(ana, address=f"198.51.100.{i}"), "guess")
        assert response.json()["code"] == "wrong_password"

    # the next try is refused before the password is looked at, even the right one
    assert_throttled(change(api_client(ana, address="198.51.100.99"), PASSWORD_OK))
    ana.refresh_from_db()
    assert ana.check_password(PASSWORD_OK)


def test_old_password_guesses_are_limited_per_address(db):
    accounts = [user(f"p{i}") for i in range(LIMIT + 1)]
    for account in accounts[:LIMIT]:
        assert change(api_client(account, address="192.0.2.1"), "guess").status_code == 400

    assert_throttled(change(api_client(accounts[LIMIT], address="192.0.2.1"), PASSWORD_OK))
    # another account from another address is not held back
    assert change(api_client(user("zed"), address="192.0.2.2"), PASSWORD_OK).status_code == 200


def admin_login(username: str, password: str, *, address: str):
    client = Client(REMOTE_ADDR=address)
    response = client.post(ADMIN_LOGIN, {"username": username, "password": password})
    return client, response


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_admin_login_attempts_are_limited_per_username(db):
    user("boss", is_staff=True, is_superuser=True)
    for i in range(LIMIT):
        client, response = admin_login("boss", "guess", address=f"198.51.100.{i}")
        assert response.status_code == 200 and not logged_in(client)

    client, response = admin_login("BOSS", PASSWORD_OK, address="198.51.100.99")

    assert response.status_code == 200 and not logged_in(client)
    assert "Too many login attempts" in response.content.decode()


def test_admin_login_attempts_are_limited_per_address(db):
    user("boss", is_staff=True, is_superuser=True)
    for i in range(LIMIT):
        admin_login(f"someone{i}", "guess", address="192.0.2.1")

    client, response = admin_login("boss", PASSWORD_OK, address="192.0.2.1")
    assert not logged_in(client)
    assert "Too many login attempts" in response.content.decode()

    client, response = admin_login("boss", PASSWORD_OK, address="192.0.2.2")
    assert response.status_code == 302 and logged_in(client)


def test_the_admin_login_refusal_is_in_the_users_language(db):
    for i in range(LIMIT):
        admin_login("boss", "guess", address=f"198.51.100.{i}")

    client = Client(REMOTE_ADDR="198.51.100.50", HTTP_ACCEPT_LANGUAGE="fr")
    response = client.post(ADMIN_LOGIN, {"username": "boss", "password": "guess"})

    assert "Trop de tentatives de connexion" in response.content.decode()
