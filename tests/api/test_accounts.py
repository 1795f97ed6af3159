"""The accounts API end to end: sign-up, log in / out, tokens, profile, password, moderation.

Every error is checked for the shared shape: a stable `code` and a human `message`.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from knox.crypto import hash_token
from rest_framework.test import APIClient

from accounts.authentication import access_refusal
from accounts.models import DeviceToken, User
from accounts.services import token_issue
from accounts.throttles import AUTH_SCOPE, AuthRateThrottle

SIGNUP = "/api/v1/auth/signup"
LOGIN = "/api/v1/auth/login"
LOGOUT = "/api/v1/auth/logout"
TOKEN = "/api/v1/auth/token"
ME = "/api/v1/me"
DEVICES = "/api/v1/me/devices"
PASSWORD = "/api/v1/me/password"

PASSWORD_OK = "correct horse battery staple"
NEW_PASSWORD = "a quieter horse, 42 hooves"

pytestmark = pytest.mark.usefixtures("no_auth_rate_limit")


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def ana(db) -> User:
    return User.objects.create_user(username="ana", password=PASSWORD_OK, display_name="Ana")


def post(client: APIClient, url: str, data: dict | None = None):
    return client.post(url, data or {}, format="json")


def token_client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def session_client(username: str = "ana", password: str = PASSWORD_OK) -> APIClient:
    client = APIClient()
    response = post(client, LOGIN, {"username": username, "password": password})
    assert response.status_code == 200, response.json()
    return client


def assert_error(response, status: int | tuple[int, ...], code: str) -> dict:
    statuses = status if isinstance(status, tuple) else (status,)
    body = response.json()
    assert response.status_code in statuses, body
    assert body["code"] == code, body
    assert isinstance(body["message"], str) and body["message"], body
    return body


def field_errors(response, status: int = 400) -> dict:
    return assert_error(response, status, "invalid")["errors"]


def suspend(user: User, *, for_: timedelta) -> None:
    user.suspended_until = timezone.now() + for_
    user.save(update_fields=["suspended_until"])


def ban(user: User) -> None:
    user.banned_at = timezone.now()
    user.moderation_reason = "cheating"
    user.save(update_fields=["banned_at", "moderation_reason"])


# ---------------------------------------------------------------------------------- sign-up


def test_signup_returns_the_profile_and_a_token_that_works(anon, db):
    response = post(
        anon,
        SIGNUP,
        {"username": "ben", "password": PASSWORD_OK, "display_name": " Ben ", "email": "b@x.io"},
    )

    assert response.status_code == 201, response.json()
    body = response.json()
    assert set(body) == {"user", "token"}
    assert body["user"]["username"] == "ben"
    assert body["user"]["display_name"] == "Ben"
    assert body["user"]["email"] == "b@x.io"
    assert set(body["user"]) == {
        "id",
        "username",
        "display_name",
        "email",
        "email_on_turn",
        "language",
        "date_joined",
    }
    me = token_client(body["token"]).get(ME)
    assert me.status_code == 200
    assert me.json() == body["user"]
    assert User.objects.get(username="ben").check_password(PASSWORD_OK)


def test_signup_display_name_defaults_to_the_username(anon, db):
    body = post(anon, SIGNUP, {"username": "cy", "password": PASSWORD_OK}).json()

    assert body["user"]["display_name"] == "cy"
    assert body["user"]["email"] == ""


@pytest.mark.parametrize(
    "password",
    ["short", "12345678901", "password123", "dorothea1"],
    ids=["too-short", "numeric", "common", "like-the-username"],
)
def test_signup_applies_the_password_validators(anon, db, password):
    response = post(anon, SIGNUP, {"username": "dorothea", "password": password})

    errors = field_errors(response)
    assert list(errors) == ["password"] and errors["password"]
    assert not User.objects.filter(username="dorothea").exists()


def test_signup_field_errors(anon, db):
    response = post(anon, SIGNUP, {"username": "no spaces!", "email": "not-an-email"})

    assert set(field_errors(response)) == {"username", "password", "email"}


@pytest.mark.parametrize("username", ["ana", "ANA", "Ana"])
def test_signup_with_a_taken_username_is_a_conflict(anon, ana, username):
    response = post(anon, SIGNUP, {"username": username, "password": PASSWORD_OK})

    assert_error(response, 409, "username_taken")
    assert User.objects.filter(username__iexact="ana").count() == 1


# ---------------------------------------------------------------------------------- log in / out


def test_login_starts_a_session_and_returns_the_token(anon, ana):
    response = post(anon, LOGIN, {"username": "ana", "password": PASSWORD_OK})

    assert response.status_code == 200
    body = response.json()
    assert body["user"]["username"] == "ana"
    assert DeviceToken.objects.filter(user=ana, digest=hash_token(body["token"])).exists()
    # The same client, with no token: the session cookie authenticates it.
    assert anon.get(ME).json()["username"] == "ana"
    assert token_client(body["token"]).get(ME).status_code == 200


def test_login_needs_no_csrf_token_but_the_session_then_does(ana):
    browser = APIClient(enforce_csrf_checks=True)

    response = post(browser, LOGIN, {"username": "ana", "password": PASSWORD_OK})

    assert response.status_code == 200
    assert browser.get(ME).status_code == 200
    assert_error(browser.patch(ME, {"display_name": "X"}, format="json"), 403, "permission_denied")


def test_each_login_is_a_device_with_a_token_of_its_own(ana):
    first = post(APIClient(), LOGIN, {"username": "ana", "password": PASSWORD_OK}).json()
    second = post(APIClient(), LOGIN, {"username": "ana", "password": PASSWORD_OK}).json()

    assert first["token"] != second["token"]
    assert token_client(first["token"]).get(ME).status_code == 200
    assert token_client(second["token"]).get(ME).status_code == 200


@pytest.mark.parametrize("url", [LOGIN, TOKEN])
def test_wrong_credentials_are_told_apart_by_nothing(anon, ana, url):
    unknown = post(anon, url, {"username": "nobody", "password": PASSWORD_OK})
    wrong = post(anon, url, {"username": "ana", "password": "not the password"})

    assert_error(unknown, 400, "invalid_credentials")
    assert_error(wrong, 400, "invalid_credentials")
    assert unknown.json() == wrong.json()
    assert anon.get(ME).status_code in (401, 403)


def test_login_with_missing_fields_is_a_field_error(anon, db):
    assert set(field_errors(post(anon, LOGIN, {}))) == {"username", "password"}


def test_an_inactive_user_cannot_log_in(anon, ana):
    ana.is_active = False
    ana.save(update_fields=["is_active"])

    assert_error(
        post(anon, LOGIN, {"username": "ana", "password": PASSWORD_OK}), 400, "invalid_credentials"
    )


def test_logout_ends_the_session(ana):
    browser = session_client()

    response = post(browser, LOGOUT)

    assert response.status_code == 204
    assert_error(browser.get(ME), (401, 403), "not_authenticated")
    assert DeviceToken.objects.filter(user=ana).exists()  # a browser logout leaves tokens alone


def test_logout_with_a_token_revokes_it(anon, ana):
    key = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK}).json()["token"]
    mobile = token_client(key)

    assert post(mobile, LOGOUT).status_code == 204

    assert not DeviceToken.objects.filter(digest=hash_token(key)).exists()
    assert_error(mobile.get(ME), 401, "authentication_failed")


def test_logout_when_not_logged_in_is_not_an_error(anon, db):
    assert post(anon, LOGOUT).status_code == 204


# ---------------------------------------------------------------------------------- tokens


def test_token_issue_returns_the_token_without_a_session(anon, ana):
    response = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK})

    assert response.status_code == 200
    assert set(response.json()) == {"token"}
    assert DeviceToken.objects.filter(digest=hash_token(response.json()["token"])).exists()
    assert_error(anon.get(ME), (401, 403), "not_authenticated")
    assert token_client(response.json()["token"]).get(ME).status_code == 200


def test_token_revoke(anon, ana):
    key = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK}).json()["token"]
    mobile = token_client(key)

    assert mobile.delete(TOKEN).status_code == 204

    assert not DeviceToken.objects.filter(user=ana).exists()
    assert_error(mobile.get(ME), 401, "authentication_failed")
    fresh = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK}).json()["token"]
    assert fresh != key
    assert token_client(fresh).get(ME).status_code == 200


def test_token_revoke_needs_authentication(anon, db):
    assert_error(anon.delete(TOKEN), (401, 403), "not_authenticated")


def test_a_made_up_token_is_refused(db):
    assert_error(token_client("f" * 40).get(ME), 401, "authentication_failed")


# ---------------------------------------------------------------------------------- profile


def test_me_needs_authentication(anon, db):
    response = anon.get(ME)

    assert_error(response, (401, 403), "not_authenticated")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"


def test_me_returns_the_profile(ana):
    body = token_client(DeviceToken.objects.create(user=ana)[1]).get(ME).json()

    assert body == {
        "id": ana.pk,
        "username": "ana",
        "display_name": "Ana",
        "email": "",
        "email_on_turn": False,
        "language": "",
        "date_joined": body["date_joined"],
    }
    assert body["date_joined"].endswith("Z")


def test_profile_edit_strips_and_saves(ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    response = client.patch(
        ME, {"display_name": "  Ana the Driver  ", "email": "ana@EXAMPLE.org"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["display_name"] == "Ana the Driver"
    assert response.json()["email"] == "ana@example.org"
    ana.refresh_from_db()
    assert (ana.display_name, ana.email) == ("Ana the Driver", "ana@example.org")
    assert client.get(ME).json() == response.json()


def test_profile_edit_changes_only_the_fields_sent(ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    assert client.patch(ME, {"email": "a@b.io"}, format="json").json()["display_name"] == "Ana"
    assert client.patch(ME, {}, format="json").json()["email"] == "a@b.io"


@pytest.mark.parametrize(
    "display_name",
    ["", "   ", "x" * 51, "bell\x07", "two\nlines", "tab\there", "evil\u202eeman", None],
    ids=["empty", "blank", "too-long", "control", "newline", "tab", "bidi-override", "null"],
)
def test_profile_edit_refuses_bad_display_names(ana, display_name):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    response = client.patch(ME, {"display_name": display_name}, format="json")

    assert list(field_errors(response)) == ["display_name"]
    ana.refresh_from_db()
    assert ana.display_name == "Ana"


@pytest.mark.parametrize("display_name", ["x" * 50, "Zoë 🚕", "  padded" + " " * 60, "李小龍"])
def test_profile_edit_accepts_good_display_names(ana, display_name):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    response = client.patch(ME, {"display_name": display_name}, format="json")

    assert response.status_code == 200, response.json()
    assert response.json()["display_name"] == display_name.strip()


def test_profile_edit_refuses_a_bad_email(ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    assert list(field_errors(client.patch(ME, {"email": "nope"}, format="json"))) == ["email"]


# ---------------------------------------------------------------------------------- password


def test_password_change_with_the_wrong_old_password(ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    response = post(client, PASSWORD, {"old_password": "guess", "new_password": NEW_PASSWORD})

    assert_error(response, 400, "wrong_password")
    ana.refresh_from_db()
    assert ana.check_password(PASSWORD_OK)


@pytest.mark.parametrize("new_password", ["short", "qwertyuiop", "123456789012"])
def test_password_change_applies_the_validators(ana, new_password):
    client = token_client(DeviceToken.objects.create(user=ana)[1])

    response = post(client, PASSWORD, {"old_password": PASSWORD_OK, "new_password": new_password})

    assert list(field_errors(response)) == ["new_password"]
    ana.refresh_from_db()
    assert ana.check_password(PASSWORD_OK)


def test_password_change_keeps_this_device_and_signs_the_others_out(anon, ana):
    this_key, other_key = (
        token_issue(user=ana, device="phone")[1],
        DeviceToken.objects.create(user=ana)[1],
    )
    client = token_client(this_key)

    response = post(client, PASSWORD, {"old_password": PASSWORD_OK, "new_password": NEW_PASSWORD})

    assert response.status_code == 200
    assert response.json()["token"] == this_key  # this device keeps its token
    assert client.get(ME).status_code == 200
    assert_error(token_client(other_key).get(ME), 401, "authentication_failed")
    assert [d["device"] for d in client.get(DEVICES).json()] == ["phone"]
    assert_error(
        post(anon, LOGIN, {"username": "ana", "password": PASSWORD_OK}), 400, "invalid_credentials"
    )
    assert post(anon, LOGIN, {"username": "ana", "password": NEW_PASSWORD}).status_code == 200


def test_password_change_from_a_browser_signs_every_device_out(ana):
    key = DeviceToken.objects.create(user=ana)[1]
    browser = session_client()

    response = post(browser, PASSWORD, {"old_password": PASSWORD_OK, "new_password": NEW_PASSWORD})

    assert response.status_code == 200
    assert_error(token_client(key).get(ME), 401, "authentication_failed")
    assert token_client(response.json()["token"]).get(ME).status_code == 200


def test_password_change_keeps_this_session_and_ends_the_others(ana):
    browser, other_browser = session_client(), session_client()

    response = post(browser, PASSWORD, {"old_password": PASSWORD_OK, "new_password": NEW_PASSWORD})

    assert response.status_code == 200
    assert browser.get(ME).status_code == 200
    assert_error(other_browser.get(ME), (401, 403), "not_authenticated")


# ---------------------------------------------------------------------------------- moderation


def test_suspended_user_is_refused_at_login_and_token_issue(anon, ana):
    suspend(ana, for_=timedelta(days=2))

    for url in (LOGIN, TOKEN):
        body = assert_error(
            post(anon, url, {"username": "ana", "password": PASSWORD_OK}), 403, "account_suspended"
        )
        assert body["until"] == ana.suspended_until.isoformat().replace("+00:00", "Z")
    assert_error(anon.get(ME), (401, 403), "not_authenticated")  # no session was started


def test_suspended_user_is_refused_with_a_token(ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])
    suspend(ana, for_=timedelta(hours=1))

    body = assert_error(client.get(ME), 403, "account_suspended")

    assert "until" in body
    assert_error(client.patch(ME, {"display_name": "Sneaky"}, format="json"), 403, body["code"])


def test_suspended_user_is_refused_with_a_session(ana):
    browser = session_client()
    suspend(ana, for_=timedelta(hours=1))

    assert_error(browser.get(ME), 403, "account_suspended")


def test_a_past_suspension_no_longer_refuses(anon, ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])
    suspend(ana, for_=-timedelta(seconds=1))

    assert client.get(ME).status_code == 200
    assert post(anon, LOGIN, {"username": "ana", "password": PASSWORD_OK}).status_code == 200


def test_banned_user_is_refused(anon, ana):
    client = token_client(DeviceToken.objects.create(user=ana)[1])
    browser = session_client()
    ban(ana)

    body = assert_error(
        post(anon, LOGIN, {"username": "ana", "password": PASSWORD_OK}), 403, "account_banned"
    )
    assert "until" not in body and "cheating" not in body["message"]
    assert_error(client.get(ME), 403, "account_banned")
    assert_error(browser.get(ME), 403, "account_banned")


def test_a_ban_outranks_a_suspension(ana):
    suspend(ana, for_=timedelta(days=1))
    ban(ana)

    assert_error(
        token_client(DeviceToken.objects.create(user=ana)[1]).get(ME), 403, "account_banned"
    )


def test_a_refused_user_can_still_log_out_and_revoke_the_token(ana):
    key = DeviceToken.objects.create(user=ana)[1]
    browser = session_client()
    ban(ana)

    assert post(token_client(key), LOGOUT).status_code == 204
    assert not DeviceToken.objects.filter(digest=hash_token(key)).exists()
    assert post(browser, LOGOUT).status_code == 204
    assert_error(browser.get(ME), (401, 403), "not_authenticated")

    key = DeviceToken.objects.create(user=ana)[1]
    assert token_client(key).delete(TOKEN).status_code == 204
    assert not DeviceToken.objects.filter(digest=hash_token(key)).exists()


def test_access_refusal_helper(ana):
    now = timezone.now()
    assert access_refusal(ana, now) is None

    ana.suspended_until = now
    assert access_refusal(ana, now) is None  # the suspension has just ended
    assert access_refusal(ana, now - timedelta(microseconds=1))[0] == "account_suspended"

    ana.banned_at = now
    code, message = access_refusal(ana, now)
    assert code == "account_banned" and message


# ---------------------------------------------------------------------------------- rate limit


def test_password_endpoints_are_rate_limited_per_address(ana, settings):
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"auth": "3/min"},
    }
    here, elsewhere = "203.0.113.7", "203.0.113.8"
    cache.delete_many([f"throttle_auth_{address}" for address in (here, elsewhere)])

    def client(address: str) -> APIClient:
        return APIClient(REMOTE_ADDR=address)

    ana_credentials = {"username": "ana", "password": PASSWORD_OK}
    # Login, token and sign-up share one count, whoever the requests name.
    assert post(client(here), LOGIN, ana_credentials).status_code == 200
    assert post(client(here), TOKEN, {"username": "ana", "password": "wrong"}).status_code == 400
    assert post(client(here), SIGNUP, {"username": "ben"}).status_code == 400

    response = post(client(here), LOGIN, {"username": "someone", "password": "else"})
    assert_error(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0
    assert post(client(elsewhere), LOGIN, ana_credentials).status_code == 200
    # Requests made with the token are not counted.
    key = DeviceToken.objects.create(user=ana)[1]
    assert token_client(key).get(ME).status_code == 200


def test_the_auth_rate_has_a_default_when_the_settings_name_none(settings):
    settings.REST_FRAMEWORK = {
        key: value
        for key, value in settings.REST_FRAMEWORK.items()
        if key != "DEFAULT_THROTTLE_RATES"
    }
    throttle = AuthRateThrottle()
    throttle.scope = AUTH_SCOPE

    assert throttle.get_rate() == "20/min"


# ---------------------------------------------------------------------------------- schema, admin


def test_schema_documents_the_account_endpoints(anon, db):
    response = anon.get("/api/schema/", {"format": "json"})

    assert response.status_code == 200
    schema = response.json()
    for path, methods in {
        SIGNUP: {"post"},
        LOGIN: {"post"},
        LOGOUT: {"post"},
        TOKEN: {"post", "delete"},
        ME: {"get", "patch"},
        PASSWORD: {"post"},
    }.items():
        assert methods <= set(schema["paths"][path]), path
    login = schema["paths"][LOGIN]["post"]
    assert {"200", "400", "403", "429"} <= set(login["responses"])
    assert schema["paths"][SIGNUP]["post"]["responses"].keys() >= {"201", "400", "409"}
    assert set(schema["components"]["securitySchemes"]) == {"tokenAuth", "cookieAuth"}


def test_admin_filters_users_by_access(admin_client, ana):
    ban(ana)

    for access in ("allowed", "suspended", "banned"):
        response = admin_client.get("/admin/accounts/user/", {"access": access})
        assert response.status_code == 200
        assert (b">ana<" in response.content) == (access == "banned")
    assert admin_client.get(f"/admin/accounts/user/{ana.pk}/change/").status_code == 200


# ---------------------------------------------------------------------------------- devices


def test_tokens_are_per_device_hashed_and_expire(anon, ana, settings):
    phone = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": "phone"})
    tablet = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": "tablet"})
    phone_key, tablet_key = phone.json()["token"], tablet.json()["token"]
    stored = DeviceToken.objects.filter(user=ana)
    assert stored.count() == 2
    assert not stored.filter(digest__in=[phone_key, tablet_key]).exists()  # never in clear
    assert all(token.expiry is not None for token in stored)
    listed = token_client(phone_key).get(DEVICES).json()
    assert {d["device"]: d["current"] for d in listed} == {"phone": True, "tablet": False}
    # an expired token is refused (and dropped)
    DeviceToken.objects.filter(digest=hash_token(tablet_key)).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    assert_error(token_client(tablet_key).get(ME), 401, "authentication_failed")
    assert [d["device"] for d in token_client(phone_key).get(DEVICES).json()] == ["phone"]


def test_a_token_request_reads_one_token_row_however_many_devices_the_account_has(ana):
    """The token and its user in one query: the account's other tokens are not read on each
    request (knox's own clean-up reads them all to drop the expired)."""
    key = token_issue(user=ana, device="phone")[1]
    client = token_client(key)

    def token_queries() -> list[str]:
        with CaptureQueriesContext(connection) as seen:
            assert client.get(ME).status_code == 200
        return [q["sql"] for q in seen.captured_queries if "accounts_devicetoken" in q["sql"]]

    assert len(token_queries()) == 1
    for i in range(9):
        token_issue(user=ana, device=f"tablet {i}")
    DeviceToken.objects.exclude(digest=hash_token(key)).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    assert len(token_queries()) == 1


def test_expired_tokens_go_at_the_next_login_and_the_presented_one_at_once(anon, ana):
    keys = {
        device: post(
            anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": device}
        ).json()["token"]
        for device in ("phone", "tablet", "laptop")
    }
    past = timezone.now() - timedelta(seconds=1)
    for device in ("tablet", "laptop"):
        DeviceToken.objects.filter(digest=hash_token(keys[device])).update(expiry=past)
    assert token_client(keys["phone"]).get(ME).status_code == 200
    # the tablet's token is refused and dropped when presented
    assert_error(token_client(keys["tablet"]).get(ME), 401, "authentication_failed")
    assert DeviceToken.objects.filter(user=ana).count() == 2
    # the laptop's, never presented again, goes at the next login
    post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": "watch"})
    stored = {t.device for t in DeviceToken.objects.filter(user=ana)}
    assert stored == {"phone", "watch"}
    assert_error(token_client(keys["laptop"]).get(ME), 401, "authentication_failed")


def test_an_account_holds_a_bounded_number_of_tokens_and_keeps_its_recent_devices(
    anon, ana, settings
):
    """A loop of logins cannot grow the token table: past DEVICE_TOKENS_PER_ACCOUNT a new
    login signs out the devices used least recently, never the one just issued nor one in
    use (knox moves a token's expiry forward when it is used)."""
    settings.DEVICE_TOKENS_PER_ACCOUNT = 3
    keys = {}
    for device in ("old-phone", "tablet", "laptop"):
        response = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": device})
        keys[device] = response.json()["token"]
    # the old phone was used last a month ago, the laptop an hour ago, the tablet just now
    now = timezone.now() + timedelta(days=float(settings.REST_KNOX["TOKEN_TTL"].days))
    for device, age in (("old-phone", timedelta(days=30)), ("laptop", timedelta(hours=1))):
        DeviceToken.objects.filter(digest=hash_token(keys[device])).update(expiry=now - age)
    for device in ("new-phone", "watch"):
        response = post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": device})
        keys[device] = response.json()["token"]
    assert DeviceToken.objects.filter(user=ana).count() == 3
    for device in ("old-phone", "laptop"):
        assert_error(token_client(keys[device]).get(ME), 401, "authentication_failed")
    listed = {d["device"] for d in token_client(keys["watch"]).get(DEVICES).json()}
    assert listed == {"tablet", "new-phone", "watch"}
    # another account's tokens are not touched
    ben = User.objects.create_user("ben", password=PASSWORD_OK)
    ben_key = token_issue(user=ben, device="phone")[1]
    post(anon, TOKEN, {"username": "ana", "password": PASSWORD_OK, "device": "again"})
    assert token_client(ben_key).get(ME).status_code == 200


def test_logging_out_on_the_phone_leaves_the_tablet_signed_in(anon, ana):
    phone = token_client(token_issue(user=ana, device="phone")[1])
    tablet = token_client(token_issue(user=ana, device="tablet")[1])
    assert post(phone, LOGOUT).status_code == 204
    assert_error(phone.get(ME), 401, "authentication_failed")
    assert tablet.get(ME).status_code == 200


def test_revoke_one_device_or_all(anon, ana):
    phone_key = token_issue(user=ana, device="phone")[1]
    tablet_key = token_issue(user=ana, device="tablet")[1]
    laptop_key = token_issue(user=ana, device="laptop")[1]
    phone = token_client(phone_key)
    tablet = next(d for d in phone.get(DEVICES).json() if d["device"] == "tablet")
    assert phone.delete(f"{DEVICES}/{tablet['token_key']}").status_code == 204
    assert_error(token_client(tablet_key).get(ME), 401, "authentication_failed")
    assert_error(phone.delete(f"{DEVICES}/{tablet['token_key']}"), 404, "not_found")
    other = token_issue(user=User.objects.create_user("ben", password=PASSWORD_OK))[1]
    ben_device = token_client(other).get(DEVICES).json()[0]["token_key"]
    assert_error(phone.delete(f"{DEVICES}/{ben_device}"), 404, "not_found")  # not ana's
    assert phone.delete(DEVICES).status_code == 204  # every device, this one too
    for key in (phone_key, laptop_key):
        assert_error(token_client(key).get(ME), 401, "authentication_failed")
    assert token_client(other).get(ME).status_code == 200
