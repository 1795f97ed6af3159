"""Content-Security-Policy on every HTML page (issue 20, item 11).

Scripts and styles come only from this site's own files: no inline `<script>`, no inline
`style="…"`, no `eval`, no plug-ins, and no page may frame ours. So a string that slips past
escaping into a page cannot run. Data blocks (`json_script`, `type="application/json"`) are not
scripts to the browser and need no exception; styles a script sets through the CSSOM
(`node.style.background = …`) are allowed by every browser under `style-src 'self'`.

`connect-src 'self'` covers the page's own WebSocket (`ws:`/`wss:` to the same host) in CSP
Level 3; the socket's own origin is named as well, for browsers older than that (Safari
before 15.4).

The API's Swagger UI (`/api/docs/`, drf-spectacular) lives under the same policy: its files
come from drf-spectacular-sidecar as our own static files, its initialising script is a separate
file (`SpectacularSwaggerSplitView`) and its page template takes its style from a file
(games/templates/web/swagger_ui.html); tests/browser/test_api_docs_in_browser.py runs it in
Chromium.

Responses that already carry a policy keep theirs; non-HTML responses (the JSON API) get
none: a policy governs documents, and a JSON body is never one here.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"

POLICY: dict[str, tuple[str, ...]] = {
    "default-src": ("'self'",),
    "script-src": ("'self'",),
    "style-src": ("'self'",),
    "img-src": ("'self'", "data:"),
    "font-src": ("'self'",),
    "connect-src": ("'self'",),
    "object-src": ("'none'",),
    "base-uri": ("'none'",),
    "form-action": ("'self'",),
    "frame-ancestors": ("'none'",),
}


def policy_text(extras: dict[str, tuple[str, ...]] | None = None) -> str:
    extras = extras or {}
    return "; ".join(
        " ".join((directive, *sources, *extras.get(directive, ())))
        for directive, sources in POLICY.items()
    )


#: The policy without the page's own socket origin (which depends on the request).
STRICT = policy_text()


class ContentSecurityPolicyMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if HEADER in response or not response.get("Content-Type", "").startswith("text/html"):
            return response
        extras: dict[str, tuple[str, ...]] = {}
        try:
            host = request.get_host()
        except DisallowedHost:  # the 400 page for a host we do not serve: no socket either
            host = None
        if host:
            extras["connect-src"] = (f"{'wss' if request.is_secure() else 'ws'}://{host}",)
        response[HEADER] = policy_text(extras)
        return response
