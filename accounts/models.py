from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """The platform's user; custom from day one so profile fields never need a model swap."""

    display_name = models.CharField(max_length=50, blank=True)

    def __str__(self) -> str:
        return self.display_name or self.username
