"""Liveness and readiness in one: answers only if the database answers."""

from django.db import DatabaseError, connection
from django.http import HttpRequest, JsonResponse


def healthz(request: HttpRequest) -> JsonResponse:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        return JsonResponse({"status": "error", "code": "database_unavailable"}, status=503)
    return JsonResponse({"status": "ok"})
