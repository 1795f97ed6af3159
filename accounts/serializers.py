"""Request validation and response shapes for the accounts API.

Request serializers only validate; the services write. Uniqueness of usernames is a 409 from
the service, not a field error here, so it is not a `ModelSerializer` validator.
"""

from __future__ import annotations

import unicodedata
from typing import cast

from django.conf import settings
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError as DjangoValidationError
from django.utils.translation import gettext as _
from rest_framework import serializers

from accounts.models import PushSubscription, User
from accounts.names import (
    MAX_COMBINING_MARKS_IN_A_ROW,
    display_name_normalize,
    has_invisible_characters,
    longest_combining_run,
)
from taxi_project.strict_fields import JsonTypes

DISPLAY_NAME_MAX_LENGTH = User._meta.get_field("display_name").max_length

# Invisible characters that reorder the text around them: a name could disguise itself as
# another or spill its direction into the text beside it wherever it is shown.
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def validate_no_control_characters(value: str) -> None:
    for char in value:
        if unicodedata.category(char) in {"Cc", "Zl", "Zp"} or char in _BIDI_CONTROLS:
            raise serializers.ValidationError(
                _("Control characters and line breaks are not allowed."),
                code="control_characters",
            )


def _password_errors(password: str, user: User) -> None:
    """Django's AUTH_PASSWORD_VALIDATORS, as field errors on the password field given."""
    try:
        validate_password(password, user)
    except DjangoValidationError as error:
        raise serializers.ValidationError(list(error.messages), code="password_invalid") from error


class PasswordField(serializers.CharField):
    def __init__(self, **kwargs):
        # Spaces are part of a password; never trim them.
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("write_only", True)
        kwargs.setdefault("style", {"input_type": "password"})
        super().__init__(**kwargs)


def validate_no_invisible_characters(value: str) -> None:
    if has_invisible_characters(value):
        raise serializers.ValidationError(
            _("Invisible characters are not allowed."), code="invisible_characters"
        )


def validate_few_combining_marks(value: str) -> None:
    if longest_combining_run(value) > MAX_COMBINING_MARKS_IN_A_ROW:
        raise serializers.ValidationError(
            _("Too many accents or marks are stacked on one letter."),
            code="combining_characters",
        )


class DisplayNameField(serializers.CharField):
    """In NFKC form, 1–50 characters once leading and trailing whitespace is stripped; no
    control or invisible characters, no stack of combining marks (accounts/names.py). Whether
    it looks like another player's name is the service's question (409)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("min_length", 1)
        kwargs.setdefault("max_length", DISPLAY_NAME_MAX_LENGTH)
        kwargs.setdefault(
            "validators",
            [
                validate_no_control_characters,
                validate_no_invisible_characters,
                validate_few_combining_marks,
            ],
        )
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> str:
        return display_name_normalize(super().to_internal_value(data))


# --- Requests --------------------------------------------------------------------------------


class SignupSerializer(JsonTypes, serializers.Serializer):
    username = serializers.CharField(
        max_length=150,
        validators=[UnicodeUsernameValidator()],
        help_text="150 characters or fewer: letters, digits and @/./+/-/_ only. "
        "Unique regardless of case.",
    )
    password = PasswordField(help_text="Checked by the server's password validators.")
    display_name = DisplayNameField(
        required=False, help_text="Shown to other players; defaults to the username."
    )
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254)
    device = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=100,
        help_text='A name for this device ("Ana\'s phone"), shown in its list of devices.',
    )

    def validate(self, attrs: dict) -> dict:
        # The similarity validator compares the password with these attributes.
        candidate = User(
            username=attrs["username"],
            email=attrs.get("email", ""),
            display_name=attrs.get("display_name", ""),
        )
        try:
            _password_errors(attrs["password"], candidate)
        except serializers.ValidationError as error:
            raise serializers.ValidationError({"password": error.detail}) from error
        return attrs


class CredentialsSerializer(JsonTypes, serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = PasswordField()
    device = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=100,
        help_text='A name for this device ("Ana\'s phone"), shown in its list of devices.',
    )


class ProfileUpdateSerializer(JsonTypes, serializers.Serializer):
    display_name = DisplayNameField(required=False)
    email = serializers.EmailField(required=False, allow_blank=True, max_length=254)
    email_on_turn = serializers.BooleanField(
        required=False, help_text="E-mail me when a game waits on my move (needs an e-mail)."
    )
    language = serializers.ChoiceField(
        choices=[("", "auto"), *settings.LANGUAGES],
        required=False,
        allow_blank=True,
        help_text="`en`, `fr`, `pl`, `ja` or `ko`; blank follows the browser's Accept-Language.",
    )


class PasswordChangeSerializer(JsonTypes, serializers.Serializer):
    """Needs `context={"user": ...}`: the new password is checked against that account."""

    old_password = PasswordField()
    new_password = PasswordField(help_text="Checked by the server's password validators.")

    def validate_new_password(self, value: str) -> str:
        _password_errors(value, self.context["user"])
        return value


# --- Responses -------------------------------------------------------------------------------


class ProfileSerializer(serializers.ModelSerializer):
    # Declared, not derived from the model: both may be blank, which the derived schema
    # (format "email"; an enum without "") would not allow.
    email = serializers.CharField(read_only=True, help_text="An e-mail address, or empty.")
    language = serializers.ChoiceField(
        choices=[("", "auto"), *settings.LANGUAGES], allow_blank=True, read_only=True
    )

    class Meta:
        model = User
        fields = [
            "id",
            "username",
            "display_name",
            "email",
            "email_on_turn",
            "language",
            "date_joined",
        ]
        read_only_fields = fields


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(
        read_only=True, help_text='Send as "Authorization: Token <token>".'
    )


class DeviceSerializer(serializers.Serializer):
    """One of my devices: the token it signed in with, named by its first characters."""

    token_key = serializers.CharField(
        read_only=True, help_text="the token's first characters: revoke it by this"
    )
    device = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    expiry = serializers.DateTimeField(
        read_only=True, allow_null=True, help_text="pushed back as the token is used"
    )
    current = serializers.BooleanField(read_only=True, help_text="the token of this request")


class AuthResultSerializer(TokenSerializer):
    user = ProfileSerializer(read_only=True)


# --- Push --------------------------------------------------------------------------------


_BASE64URL = r"^[A-Za-z0-9_-]+={0,2}$"


class PushKeysSerializer(JsonTypes, serializers.Serializer):
    # base64url of 65 bytes (87 characters, 88 padded) and of 16 (22, 24 padded)
    p256dh = serializers.RegexField(
        _BASE64URL,
        max_length=cast(int, PushSubscription._meta.get_field("p256dh").max_length),
        help_text="the browser's P-256 public key, uncompressed, base64url",
    )
    auth = serializers.RegexField(
        _BASE64URL,
        max_length=cast(int, PushSubscription._meta.get_field("auth").max_length),
        help_text="the 16-byte secret, base64url",
    )


def _endpoint_fits(value: str) -> None:
    if len(value.encode("utf-8", "surrogatepass")) > PushSubscription.ENDPOINT_MAX_BYTES:
        raise serializers.ValidationError(
            _("At most %(bytes)s bytes in UTF-8.") % {"bytes": PushSubscription.ENDPOINT_MAX_BYTES}
        )


class PushSubscriptionRequestSerializer(JsonTypes, serializers.Serializer):
    """A browser's `PushSubscription.toJSON()` as it is (`endpoint`, `keys`), or a vendor
    service's device token as `endpoint` with its `service`."""

    endpoint = serializers.CharField(
        max_length=cast(int, PushSubscription._meta.get_field("endpoint").max_length),
        validators=[_endpoint_fits],
        help_text="Web Push: the push service's https URL, a public host; another service: its "
        f"device token. At most {PushSubscription.ENDPOINT_MAX_BYTES} bytes in UTF-8.",
    )
    keys = PushKeysSerializer(required=False, help_text="Web Push: required")
    service = serializers.CharField(
        required=False,
        default="webpush",
        max_length=20,
        help_text='"webpush" (the default), or a service this server has a backend for',
    )
    device = serializers.CharField(
        required=False, allow_blank=True, max_length=100, help_text="a name for the list"
    )
    expirationTime = serializers.IntegerField(  # noqa: N815 - the browser's own name
        required=False, allow_null=True, help_text="sent by browsers; ignored"
    )


class PushSubscriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    service = serializers.CharField(read_only=True)
    endpoint = serializers.CharField(read_only=True)
    device = serializers.CharField(read_only=True)
    created = serializers.DateTimeField(read_only=True)
    last_pushed = serializers.DateTimeField(read_only=True, allow_null=True)
    current = serializers.BooleanField(
        read_only=True, help_text="registered with the credentials of this request"
    )


class PushPreferencesSerializer(JsonTypes, serializers.Serializer):
    your_turn = serializers.BooleanField(
        required=False, help_text="a game waits on my move", source="push_your_turn"
    )
    game_ended = serializers.BooleanField(
        required=False, help_text="one of my games ended", source="push_game_ended"
    )
    chat = serializers.BooleanField(
        required=False, help_text="a player wrote in the chat of my game", source="push_chat"
    )


class PushPublicKeySerializer(serializers.Serializer):
    public_key = serializers.CharField(
        read_only=True,
        help_text="the server's VAPID public key (base64url, uncompressed P-256 point): the "
        "`applicationServerKey` of `pushManager.subscribe`",
    )
