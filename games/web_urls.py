"""Pages of the browser client (the web client issue builds them)."""

urlpatterns: list = []
