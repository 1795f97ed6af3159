from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        # the OpenAPI extension; the tasks, registered in every process, as `games.push`
        # queues `push_deliver` by its name
        from accounts import schema, tasks  # noqa: F401
