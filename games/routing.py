"""WebSocket URL routes, mounted by taxi_project.asgi."""

websocket_urlpatterns: list = []
