"""Login CSRF: a page on another site cannot sign a visitor in, or up.

The attack is a form on the attacker's page, posted by the victim's browser to our login with
the attacker's credentials: the browser would then hold a session for the attacker's account.
Browsers mark such a post with `Origin` (and `Sec-Fetch-Site: cross-site`), which a page
cannot forge; mobile clients send neither and are not affected.
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import User

SIGNUP = "/api/v1/auth/signup"
LOGIN = "/api/v1/auth/login"
PASSWORD_OK = "correct horse battery staple"
EVIL = "https://evil.example"


@pytest.fixture(autouse=True)
def _setup(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"auth": None}}


@pytest.fixture
def mallory(db) -> User:
    return User.objects.create_user(username="mallory", password=PASSWORD_OK)


def browser() -> Client:
    # enforce_csrf_checks: as a real browser request is handled (the test client skips it)
    return Client(enforce_csrf_checks=True)


def form_post(client: Client, url: str, data: dict, **headers):
    """What an HTML form on any page sends: urlencoded, no CSRF token, the browser's headers."""
    return client.post(url, data, **headers)


def assert_cross_origin_refused(response) -> None:
    body = response.json()
    assert response.status_code == 403, body
    assert body["code"] == "cross_origin_refused", body
    assert body["message"]
    assert settings.SESSION_COOKIE_NAME not in response.cookies


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_ORIGIN": EVIL},
        {"HTTP_ORIGIN": EVIL, "HTTP_SEC_FETCH_SITE": "cross-site"},
        {"HTTP_ORIGIN": "null"},  # a sandboxed frame or a data: page
        {"HTTP_SEC_FETCH_SITE": "cross-site"},  # Origin stripped by an extension
        {"HTTP_ORIGIN": "http://testserver.evil.example"},
        {"HTTP_ORIGIN": "https://testserver"},  # another scheme is another origin
    ],
    ids=["origin", "origin-and-fetch-site", "null-origin", "fetch-site", "suffix", "scheme"],
)
def test_a_login_form_posted_from_another_site_is_refused(mallory, headers):
    client = browser()

    response = form_post(client, LOGIN, {"username": "mallory", "password": PASSWORD_OK}, **headers)

    assert_cross_origin_refused(response)
    assert "_auth_user_id" not in client.session


def test_a_signup_form_posted_from_another_site_is_refused(db):
    response = form_post(
        browser(),
        SIGNUP,
        {"username": "puppet", "password": PASSWORD_OK},
        HTTP_ORIGIN=EVIL,
        HTTP_SEC_FETCH_SITE="cross-site",
    )

    assert_cross_origin_refused(response)
    assert not User.objects.filter(username="puppet").exists()


def test_the_sites_own_page_still_logs_in(mallory):
    client = browser()

    response = client.post(
        LOGIN,
        {"username": "mallory", "password": PASSWORD_OK},
        content_type="application/json",
        HTTP_ORIGIN="http://testserver",
        HTTP_SEC_FETCH_SITE="same-origin",
    )

    assert response.status_code == 200, response.json()
    assert client.session["_auth_user_id"] == str(mallory.pk)


@pytest.mark.parametrize(
    ("origin", "fetch_site"),
    [("https://play.taxi.example", "same-site"), ("https://taxi-app.example", "cross-site")],
    ids=["wildcard-same-site", "exact-cross-site"],
)
def test_a_trusted_origin_may_log_in(settings, mallory, origin, fetch_site):
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.taxi.example", "https://taxi-app.example"]

    response = browser().post(
        LOGIN,
        {"username": "mallory", "password": PASSWORD_OK},
        content_type="application/json",
        HTTP_ORIGIN=origin,
        HTTP_SEC_FETCH_SITE=fetch_site,
    )

    assert response.status_code == 200, response.json()


def test_a_mobile_client_without_origin_logs_in_and_signs_up(mallory):
    client = browser()

    login = client.post(
        LOGIN, {"username": "mallory", "password": PASSWORD_OK}, content_type="application/json"
    )
    signup = client.post(
        SIGNUP, {"username": "newbie", "password": PASSWORD_OK}, content_type="application/json"
    )

    assert login.status_code == 200, login.json()
    assert signup.status_code == 201, signup.json()


def test_the_login_and_signup_pages_take_no_post(db):
    # The HTML pages only render (their script posts to the API above): a form posted to
    # them is refused, by Django's CSRF check or as a method they do not take.
    for page in ("/login", "/signup"):
        client = browser()
        response = client.post(page, {"username": "mallory", "password": PASSWORD_OK})
        assert response.status_code in (403, 405)
        assert "_auth_user_id" not in client.session
