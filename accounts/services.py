"""Write paths for accounts: sign-up, log in / out, tokens, profile, password."""

from __future__ import annotations

from django.contrib.auth import SESSION_KEY, login, logout, update_session_auth_hash
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

from accounts.authentication import ensure_access
from accounts.errors import DisplayNameTaken, UsernameTaken, WrongPassword
from accounts.models import User
from accounts.names import display_name_skeleton
from games import events

DISPLAY_NAME_MAX_LENGTH = User._meta.get_field("display_name").max_length


def _display_name_look_taken(display_name: str, *, other_than: User | None = None) -> bool:
    skeleton = display_name_skeleton(display_name)
    if skeleton is None:
        return False
    holders = User.objects.filter(display_name_skeleton=skeleton)
    if other_than is not None:
        holders = holders.exclude(pk=other_than.pk)
    return holders.exists()


def user_create(*, username: str, password: str, display_name: str = "", email: str = "") -> User:
    """A new account; the password must already have passed the validators.

    Usernames are unique regardless of case, display names by their look (accounts/names.py;
    database constraints back both checks), and the display name defaults to the username."""
    username = User.normalize_username(username)
    display_name = display_name or username[:DISPLAY_NAME_MAX_LENGTH]
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken()
    if _display_name_look_taken(display_name):
        raise DisplayNameTaken()
    try:
        with transaction.atomic():
            return User.objects.create_user(
                username=username, password=password, email=email, display_name=display_name
            )
    except IntegrityError as error:  # lost a race with a sign-up for the same name or look
        if User.objects.filter(username__iexact=username).exists():
            raise UsernameTaken() from error
        raise DisplayNameTaken() from error


def token_issue(*, user: User) -> Token:
    """The user's API token, created on first use. DRF keeps one token per user, so every
    device signed in as `user` shares it. Refused accounts get no token."""
    ensure_access(user)
    token, _ = Token.objects.get_or_create(user=user)
    return token


def token_revoke(*, user: User) -> None:
    """Delete the user's token; every client using it must log in again, and its open sockets
    close (4401). Idempotent."""
    Token.objects.filter(user=user).delete()
    _credentials_changed(user)


def user_login(*, request: Request, user: User) -> Token:
    """Start a browser session for `user` and return the API token for mobile clients."""
    ensure_access(user)
    login(request, user)
    return token_issue(user=user)


def user_logout(*, request: Request) -> None:
    """End the session; when the caller authenticated with a token, revoke that token too."""
    user = request.user
    if isinstance(request.auth, Token):
        request.auth.delete()
    logout(request)
    _credentials_changed(user)


def _credentials_changed(user: User) -> None:
    """Once committed, the user's open sockets check the credentials they were opened with."""
    user_id = user.pk
    transaction.on_commit(lambda: events.credentials_changed(user_id=user_id))


def user_profile_update(
    *,
    user: User,
    display_name: str | None = None,
    email: str | None = None,
    email_on_turn: bool | None = None,
    language: str | None = None,
) -> User:
    """Change the fields given (None leaves a field as it is; a blank language follows the
    browser)."""
    changed = []
    if language is not None:
        user.language = language
        changed.append("language")
    if email_on_turn is not None:
        user.email_on_turn = email_on_turn
        changed.append("email_on_turn")
    if display_name is not None:
        user.display_name = display_name
        changed.append("display_name")
    if email is not None:
        user.email = User.objects.normalize_email(email)
        changed.append("email")
    if display_name is not None and _display_name_look_taken(display_name, other_than=user):
        raise DisplayNameTaken()
    if changed:
        try:
            with transaction.atomic():
                user.save(update_fields=changed)
        except IntegrityError as error:  # another player took the look meanwhile
            raise DisplayNameTaken() from error
    return user


def user_password_change(
    *, user: User, old_password: str, new_password: str, request: Request | None = None
) -> Token:
    """Set a new password (already through the validators) after checking the old one.

    The user's token is replaced, so other devices must log in again, and so are other browser
    sessions (Django ties sessions to the password hash). The session of `request`, if it is
    this user's, stays logged in."""
    if not user.check_password(old_password):
        raise WrongPassword()
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        token_revoke(user=user)
        token = Token.objects.create(user=user)
    if request is not None and request.session.get(SESSION_KEY) == str(user.pk):
        update_session_auth_hash(request, user)
    return token
