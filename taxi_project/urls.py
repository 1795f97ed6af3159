from django.contrib import admin
from django.urls import path

from taxi_project.health import healthz

urlpatterns = [
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
