from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"
    verbose_name = _("Games")

    def ready(self):
        # the engine's refusals join the API's error shape (taxi_project.api_errors), and the
        # tasks are registered in every process, as `games.events` queues one by its name
        from games import errors, tasks  # noqa: F401
