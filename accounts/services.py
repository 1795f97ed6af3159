"""Write paths for accounts: sign-up, log in / out, tokens, profile, password."""

from __future__ import annotations

import functools

from django.conf import settings
from django.contrib.auth import SESSION_KEY, login, logout, update_session_auth_hash
from django.db import IntegrityError, transaction
from django.utils import timezone, translation
from rest_framework.request import Request

from accounts.authentication import ensure_access
from accounts.errors import DisplayNameReserved, DisplayNameTaken, UsernameTaken, WrongPassword
from accounts.models import DeviceToken, User
from accounts.names import display_name_bare_look, display_name_skeleton
from accounts.push import push_session_moved
from games import events, registry
from games.models import BOT_LEVELS, Seat
from games.selectors import seat_name
from taxi_project.api_errors import NotFound

DISPLAY_NAME_MAX_LENGTH = User._meta.get_field("display_name").max_length

#: The computer opponents' accounts are `bot:1`, `bot:2`, … (games/services/bots.py), shown
#: by their username wherever an account is shown.
#: a table's computer opponents: every seat but its creator's, at the largest table of any game
MAX_BOTS = max(kind.max_players for kind in registry.all()) - 1
BOT_ACCOUNT_NAMES = tuple(f"bot:{number}" for number in range(1, MAX_BOTS + 1))


@functools.cache
def computer_names() -> frozenset[str]:
    """Every name a computer opponent is shown with, in every language of the site: a seat's
    name (`games.selectors.seat_name`: "Computer 2 (strong)") at each level and number, the
    same with each level word of every other language ("Ordinateur 2 (strong)"), and the bot
    accounts' names."""
    shown: dict[str, list[str]] = {}  # a seat's name -> the level word in it
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            for level, label in BOT_LEVELS:
                for number in range(1, MAX_BOTS + 1):  # a table's bots, numbered from 1
                    bot = Seat(bot_level=level, join_order=number)
                    shown.setdefault(seat_name(bot), []).append(str(label))
    words = {word for found in shown.values() for word in found}
    names = set(shown) | set(BOT_ACCOUNT_NAMES)
    for name, found in shown.items():
        for word in found:
            if name.count(word) == 1:
                names.update(name.replace(word, other) for other in words)
    return frozenset(names)


@functools.cache
def _reserved_looks() -> frozenset[str | None]:
    # in capitals too: a skeleton keeps "I" (as "l") apart from "i", so "MEDIUM" is "medlum"
    return frozenset(
        display_name_bare_look(variant)
        for name in computer_names()
        for variant in (name, name.upper())
    )


def display_name_reserved(display_name: str) -> bool:
    """Whether the name passes for a computer opponent's, numbered or not, in any language
    (accounts/names.py: `display_name_bare_look`)."""
    reserved = _reserved_looks()
    return any(
        display_name_bare_look(variant) in reserved
        for variant in (display_name, display_name.upper())
    )


def display_name_check(display_name: str, *, other_than: User | None = None) -> None:
    """Refuse a display name no one may take (`DisplayNameReserved`) or one that looks like
    another player's (`DisplayNameTaken`); both are `display_name_taken`. Every write of a
    display name asks here: sign-up, the profile (API and page), the admin's forms."""
    if display_name_reserved(display_name):
        raise DisplayNameReserved()
    skeleton = display_name_skeleton(display_name)
    if skeleton is None:
        return
    holders = User.objects.filter(display_name_skeleton=skeleton)
    if other_than is not None:
        holders = holders.exclude(pk=other_than.pk)
    if holders.exists():
        raise DisplayNameTaken()


def user_create(*, username: str, password: str, display_name: str = "", email: str = "") -> User:
    """A new account; the password must already have passed the validators.

    Usernames are unique regardless of case, display names by their look (accounts/names.py;
    database constraints back both checks) and never a computer opponent's, and the display
    name defaults to the username."""
    username = User.normalize_username(username)
    display_name = display_name or username[:DISPLAY_NAME_MAX_LENGTH]
    if User.objects.filter(username__iexact=username).exists():
        raise UsernameTaken()
    display_name_check(display_name)
    try:
        with transaction.atomic():
            return User.objects.create_user(
                username=username, password=password, email=email, display_name=display_name
            )
    except IntegrityError as error:  # lost a race with a sign-up for the same name or look
        if User.objects.filter(username__iexact=username).exists():
            raise UsernameTaken() from error
        raise DisplayNameTaken() from error


def token_issue(*, user: User, device: str = "") -> tuple[DeviceToken, str]:
    """A new API token for one of the user's devices: the stored token and its key (shown
    this once: only a digest is kept). Refused accounts get no token.

    An account holds at most `settings.DEVICE_TOKENS_PER_ACCOUNT` tokens: a new one signs out
    the devices used least recently beyond that (a token's expiry moves with its use, knox's
    AUTO_REFRESH), so a loop of logins cannot grow the table, and a player whose old phones
    are lost can still sign in on a new one."""
    ensure_access(user)
    issued = DeviceToken.objects.create(user=user, device=device[:100])
    keep = max(1, settings.DEVICE_TOKENS_PER_ACCOUNT)
    newest_first = DeviceToken.objects.filter(user=user).order_by("-expiry", "-created")
    stale = list(newest_first.values_list("digest", flat=True)[keep:])
    if stale:
        DeviceToken.objects.filter(digest__in=stale).delete()
        _credentials_changed(user)
    # expired tokens are refused when presented; this is where the others go
    DeviceToken.objects.filter(user=user, expiry__lte=timezone.now()).delete()
    return issued


def token_revoke(*, user: User, token: DeviceToken | None = None) -> int:
    """Revoke one of the user's tokens (`token`), or all of them; the clients using them must
    log in again, and their open sockets close (4401). Idempotent: the number revoked."""
    tokens = DeviceToken.objects.filter(user=user)
    if token is not None:
        tokens = tokens.filter(digest=token.digest)
    revoked, _ = tokens.delete()
    _credentials_changed(user)
    return revoked


def device_revoke(*, user: User, token_key: str) -> None:
    """Revoke the token of one of the user's devices, by its public `token_key`."""
    tokens = DeviceToken.objects.filter(user=user, token_key=token_key)
    if not tokens.exists():
        raise NotFound()
    tokens.delete()
    _credentials_changed(user)


def user_login(*, request: Request, user: User, device: str = "") -> tuple[DeviceToken, str]:
    """Start a browser session for `user` and return a new API token for mobile clients."""
    ensure_access(user)
    login(request, user)
    return token_issue(user=user, device=device)


def user_logout(*, request: Request) -> None:
    """End the session; when the caller authenticated with a token, revoke that token (this
    device only)."""
    user = request.user
    if isinstance(request.auth, DeviceToken):
        request.auth.delete()
    logout(request)
    if user.is_authenticated:  # logging out twice is not an error, and changes nothing
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
    if display_name is not None:
        display_name_check(display_name, other_than=user)
    if changed:
        try:
            with transaction.atomic():
                user.save(update_fields=changed)
        except IntegrityError as error:  # another player took the look meanwhile
            raise DisplayNameTaken() from error
    return user


def user_password_change(
    *, user: User, old_password: str, new_password: str, request: Request | None = None
) -> str | None:
    """Set a new password (already through the validators) after checking the old one.

    Every other device's token is revoked, so they must log in again, and so are other browser
    sessions (Django ties sessions to the password hash). The device making the request keeps
    its token (returned: the key it sent) or, from a browser session, stays logged in and gets
    a new token."""
    if not user.check_password(old_password):
        raise WrongPassword()
    current = getattr(request, "auth", None)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        others = DeviceToken.objects.filter(user=user)
        if isinstance(current, DeviceToken):
            others = others.exclude(digest=current.digest)
        others.delete()
        _credentials_changed(user)
        key = None if isinstance(current, DeviceToken) else token_issue(user=user)[1]
    if request is not None and request.session.get(SESSION_KEY) == str(user.pk):
        old_session = request.session.session_key
        update_session_auth_hash(request, user)  # a new session key: its push subscriptions
        push_session_moved(old_key=old_session, new_key=request.session.session_key)  # follow
    return key
