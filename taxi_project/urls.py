from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from taxi_project.health import healthz
from taxi_project.i18n import language_set

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
    path("i18n/setlang/", language_set, name="set_language"),
    path("api/v1/", include("accounts.urls")),
    path("api/v1/", include("games.urls")),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # the split view: Swagger UI starts from a script file, not an inline one, and our template
    # takes its style from a file: the page runs under the strict policy (taxi_project/csp.py)
    path(
        "api/docs/",
        SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="web/swagger_ui.html"),
        name="swagger-ui",
    ),
    path("", include("games.web_urls")),
]

# under /api/: JSON errors with a stable code, even where no DRF view answers
handler400 = "taxi_project.error_pages.bad_request"
handler404 = "taxi_project.error_pages.not_found"
