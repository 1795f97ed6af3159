"""The admin's forms for accounts.

The login form is limited per address and per username tried: Django's admin login
has no attempt limit of its own. The counts are kept as the API's are (accounts/throttles.py,
scope `admin_login`), in the shared cache. The user forms check a display name as the API does
(`accounts.services.display_name_check`: a look in use, a computer opponent's name), so a
moderator gets a form error rather than the unique index's 500."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.errors import DisplayNameTaken
from accounts.names import display_name_normalize
from accounts.services import display_name_check
from accounts.throttles import AdminLoginAccountThrottle, AdminLoginAddressThrottle

if TYPE_CHECKING:
    from accounts.models import User


class ThrottledAdminLoginForm(AdminAuthenticationForm):
    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "throttled": _("Too many login attempts. Try again in %(seconds)d s."),
    }

    def clean(self):
        # Counted before the password is checked: a refused try tells nothing about it.
        username = self.cleaned_data.get("username") or ""
        throttles = [AdminLoginAddressThrottle(), AdminLoginAccountThrottle(username)]
        # the throttles read only the request's META (accounts/throttles.py), not a DRF view
        waits = [t.wait() or 0 for t in throttles if not t.allow_request(self.request, None)]  # type: ignore[arg-type]
        if waits:
            raise ValidationError(
                self.error_messages["throttled"],
                code="throttled",
                params={"seconds": math.ceil(max(waits))},
            )
        return super().clean()


class DisplayNameLookMixin:
    # of the user form it is mixed into
    cleaned_data: dict[str, Any]
    instance: User

    def clean_display_name(self) -> str:
        name = display_name_normalize(self.cleaned_data.get("display_name") or "")
        try:
            display_name_check(name, other_than=self.instance if self.instance.pk else None)
        except DisplayNameTaken as refused:
            raise ValidationError(str(refused.detail), code="display_name_taken") from refused
        return name


class UserAdminChangeForm(DisplayNameLookMixin, UserChangeForm):
    pass


class UserAdminCreationForm(DisplayNameLookMixin, AdminUserCreationForm):
    pass
