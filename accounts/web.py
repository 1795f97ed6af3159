"""The profile page of the browser client. Like every page, it only renders: its script
saves through the accounts API (`PATCH /api/v1/me`), the same write path as the mobile app."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.csrf import ensure_csrf_cookie
from django.views.decorators.http import require_GET


@require_GET
@ensure_csrf_cookie
def profile_page(request):
    if not request.user.is_authenticated:
        login = reverse("web:login")
        return HttpResponseRedirect(f"{login}?{urlencode({'next': request.get_full_path()})}")
    context = {
        "title": _("Profile"),
        "profile": request.user,
        "languages": settings.LANGUAGES,
        "api": reverse("accounts:me"),
    }
    return TemplateResponse(request, "web/profile.html", context)
