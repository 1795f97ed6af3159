"""The web client's service worker (games/static/web/push-worker.js), served from the site's
root: a worker controls only pages under the path it is served from, and it must show the
notifications of every game page. Same origin, so `script-src 'self'` allows it
(taxi_project/csp.py); never cached for long, so a new version reaches browsers soon."""

from __future__ import annotations

from pathlib import Path

from django.contrib.staticfiles import finders
from django.http import HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

WORKER = "web/push-worker.js"


@require_GET
@cache_control(no_cache=True, max_age=0)
def service_worker(request):
    source = Path(finders.find(WORKER)).read_bytes()
    return HttpResponse(source, content_type="text/javascript; charset=utf-8")
