"""Errors Django answers itself, outside any DRF view (a URL that matches no route, a request
refused before it reaches a view): under /api/ in the API's JSON shape with a stable code, like
every other API error; elsewhere Django's own pages. Used only with DEBUG off."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils.translation import gettext
from django.views import defaults


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception):
    if _api(request):
        return JsonResponse({"code": "not_found", "message": gettext("Not found.")}, status=404)
    return defaults.page_not_found(request, exception)


def bad_request(request: HttpRequest, exception: Exception):
    if _api(request):
        return JsonResponse(
            {"code": "bad_request", "message": gettext("The request could not be handled.")},
            status=400,
        )
    return defaults.bad_request(request, exception)
