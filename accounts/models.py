from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from knox.models import AbstractAuthToken
from knox.settings import CONSTANTS

from accounts.names import display_name_skeleton


class User(AbstractUser):
    """The platform's user; custom from day one so profile fields never need a model swap.

    Moderation writes `suspended_until` and `banned_at`; whether they refuse the account at a
    given moment is decided in one place, `accounts.selectors.user_access_refusal`.
    """

    display_name = models.CharField(_("display name"), max_length=50, blank=True)
    # Kept by `save` from `display_name` (accounts/names.py); NULL for a blank name. Unique:
    # two players cannot hold names that look alike, whatever saves them (a queryset
    # `update()` of display_name skips `save`: don't).
    display_name_skeleton = models.TextField(
        _("display name look"), null=True, blank=True, unique=True, editable=False
    )
    email_on_turn = models.BooleanField(
        _("e-mail on my turn"),
        default=False,
        help_text=_("E-mail me when a game waits on my move."),
    )
    # What is pushed to the user's devices (accounts/push.py, games/push.py)
    push_your_turn = models.BooleanField(
        _("push: your turn"),
        default=True,
        help_text=_("Push to my devices when a game waits on my move."),
    )
    push_game_ended = models.BooleanField(
        _("push: game ended"),
        default=True,
        help_text=_("Push to my devices when one of my games ends."),
    )
    push_chat = models.BooleanField(
        _("push: chat"),
        default=True,
        help_text=_("Push to my devices when a player writes in the chat of my game."),
    )
    # Blank: follow the browser (Accept-Language), else English. See accounts/middleware.py.
    language = models.CharField(
        _("language"),
        max_length=10,
        blank=True,
        choices=settings.LANGUAGES,
        help_text=_("The language of pages, messages and e-mails; blank follows the browser."),
    )
    suspended_until = models.DateTimeField(
        _("suspended until"),
        null=True,
        blank=True,
        help_text=_("Refused until this moment; a past date no longer refuses."),
    )
    banned_at = models.DateTimeField(
        _("banned at"),
        null=True,
        blank=True,
        help_text=_("Set to ban the account; clear to lift the ban."),
    )
    moderation_reason = models.CharField(
        _("moderation reason"),
        max_length=500,
        blank=True,
        help_text=_("For moderators; not shown to the user."),
    )

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]  # not in django-stubs
        verbose_name = _("user")
        verbose_name_plural = _("users")
        constraints = [
            # "Ana" and "ana" would otherwise be two accounts a player cannot tell apart.
            models.UniqueConstraint(
                Lower("username"),
                name="accounts_user_username_ci_unique",
                violation_error_message="A user with that username already exists.",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.username

    def save(self, *args, **kwargs):
        self.display_name_skeleton = display_name_skeleton(self.display_name)
        update_fields = kwargs.get("update_fields")
        if update_fields is not None and "display_name" in update_fields:
            kwargs["update_fields"] = {*update_fields, "display_name_skeleton"}
        super().save(*args, **kwargs)


class DeviceToken(AbstractAuthToken):
    """An API token of one device (django-rest-knox: only a digest is stored, and an expiry).
    A user has one per device they signed in on; each is revoked on its own. The fields are
    knox's, redeclared only to name them in the moderators' languages."""

    digest = models.CharField(_("digest"), max_length=CONSTANTS.DIGEST_LENGTH, primary_key=True)
    token_key = models.CharField(
        _("token key"),
        max_length=CONSTANTS.MAXIMUM_TOKEN_PREFIX_LENGTH + CONSTANTS.TOKEN_KEY_LENGTH,
        db_index=True,
        help_text=_("the first characters of the token: names it, cannot be used as it"),
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="auth_token_set",
        verbose_name=_("user"),
    )
    created = models.DateTimeField(_("created"), auto_now_add=True)
    expiry = models.DateTimeField(_("expiry"), null=True, blank=True)
    device = models.CharField(_("device"), max_length=100, blank=True)

    class Meta:
        verbose_name = _("device token")
        verbose_name_plural = _("device tokens")


class PushSubscription(models.Model):
    """Where to push a user's notifications on one device: a browser's Web Push
    subscription (`service` "webpush": the push service's endpoint URL and the browser's
    `p256dh` key and `auth` secret), or a mobile vendor's device token for a configured
    backend (`settings.PUSH_BACKENDS`, accounts/push_backends.py).

    It lives as long as the credentials it was registered with: a device token (deleted with
    it: revoking a device, a password change) or a browser session (`session_key`; checked
    before each push, so a signed-out browser is never pushed to). The push service answering
    404 or 410 deletes it too, and so does an endpoint that is no longer a public host
    (accounts/push_targets.py, checked before each push).

    Bounded: `PUSH_SUBSCRIPTIONS_PER_ACCOUNT` per account (registering one more deletes the
    least recently `registered`); the endpoint is at most `ENDPOINT_MAX_BYTES` in UTF-8 (its
    unique index is a btree, whose rows PostgreSQL limits to about 2,700 bytes), the keys are
    base64url of their fixed sizes."""

    ENDPOINT_MAX_BYTES = 2000

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="push_subscriptions",
        verbose_name=_("user"),
    )
    device_token = models.ForeignKey(
        DeviceToken,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="push_subscriptions",
        verbose_name=_("device token"),
    )
    session_key = models.CharField(_("session"), max_length=40, blank=True)
    service = models.CharField(_("push service"), max_length=20, default="webpush")
    endpoint = models.CharField(
        _("endpoint"),
        max_length=2000,
        unique=True,
        help_text=_("Web Push: the push service's URL; another service: its device token"),
    )
    p256dh = models.CharField(_("public key"), max_length=100, blank=True)
    auth = models.CharField(_("authentication secret"), max_length=50, blank=True)
    device = models.CharField(_("device"), max_length=100, blank=True)
    created = models.DateTimeField(_("created"), auto_now_add=True)
    registered = models.DateTimeField(
        _("registered"),
        default=timezone.now,
        help_text=_("When a device last registered it; the least recent goes first."),
    )
    last_pushed = models.DateTimeField(_("last pushed"), null=True, blank=True)

    class Meta:
        verbose_name = _("push subscription")
        verbose_name_plural = _("push subscriptions")

    def __str__(self) -> str:
        return self.device or self.endpoint[:60]
