"""Content-Security-Policy on every HTML page: django-csp's middleware, on the policy in
settings.CONTENT_SECURITY_POLICY.

Kept here, as django-csp 4.0 does none of it: HTML responses only, the page's own socket origin
in connect-src, and one directive order in every process (django-csp joins them in a set's).

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
none: a policy governs documents, and a JSON body is never one here. As django-csp does, in
DEBUG Django's own 404 and 500 debug pages (inline styles) are left without one.
"""

from __future__ import annotations

from csp.constants import HEADER
from csp.middleware import CSPMiddleware, PolicyParts
from csp.utils import build_policy
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponseBase

__all__ = ["HEADER", "STRICT", "ContentSecurityPolicyMiddleware"]


def in_one_order(policy: str) -> str:
    return "; ".join(sorted(policy.split("; ")))


#: The policy without the page's own socket origin (which depends on the request).
STRICT = in_one_order(build_policy())


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if HEADER in response or not response.get("Content-Type", "").startswith("text/html"):
            return response
        response = super().process_response(request, response)
        if HEADER in response:
            response[HEADER] = in_one_order(response[HEADER])
        return response

    def get_policy_parts(
        self, request: HttpRequest, response: HttpResponseBase, report_only: bool = False
    ) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        try:
            host = request.get_host()
        except DisallowedHost:  # the 400 page for a host we do not serve: no socket either
            host = None
        if host and not report_only:
            socket = f"{'wss' if request.is_secure() else 'ws'}://{host}"
            parts.update = {**(parts.update or {}), "connect-src": [socket]}
        return parts
