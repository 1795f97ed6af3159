"""WebSocket URL routes, mounted by taxi_project.asgi."""

from django.urls import path

from games import consumers

websocket_urlpatterns = [
    path("ws/games/<int:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/me/", consumers.UserConsumer.as_asgi()),
]
