"""A moderator adding an account in the admin meets the display name rules too: a
look-alike name is a form error, not the unique index's 500."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User

ADD = "/admin/accounts/user/add/"
PASSWORD_OK = "correct horse battery staple"


@pytest.fixture
def moderator(db) -> Client:
    boss = User.objects.create_superuser(username="boss", password=PASSWORD_OK)
    client = Client()
    client.force_login(boss)
    return client


def add(client: Client, username: str, display_name: str):
    return client.post(
        ADD,
        {
            "username": username,
            "password1": PASSWORD_OK,
            "password2": PASSWORD_OK,
            "usable_password": "true",
            "display_name": display_name,
        },
    )


def test_the_admin_refuses_a_look_alike_display_name(moderator):
    User.objects.create_user(username="ana", password=PASSWORD_OK, display_name="Anna")

    response = add(moderator, "mallory", "Ann\u0430")  # a Cyrillic "а"

    assert response.status_code == 200  # the form again, with its error
    assert "looks the same" in response.content.decode()
    assert not User.objects.filter(username="mallory").exists()


def test_the_admin_stores_a_new_display_name_in_nfkc_form(moderator):
    response = add(moderator, "ben", "\uff22\uff45\uff4e")  # full-width "Ｂｅｎ"

    assert response.status_code == 302
    assert User.objects.get(username="ben").display_name == "Ben"


@pytest.mark.parametrize("name", ["Computer (strong)", "Ordinateur 2 (fort)", "bot:1"])
def test_the_admin_refuses_a_computer_opponents_name(moderator, name):
    response = add(moderator, "mallory", name)

    assert response.status_code == 200  # the form again, with its error
    assert "belongs to the computer opponents" in response.content.decode()
    assert not User.objects.filter(username="mallory").exists()


def test_the_admin_refuses_renaming_an_account_to_a_computer_opponents_name(moderator):
    ana = User.objects.create_user(username="ana", password=PASSWORD_OK, display_name="Anna")
    change = f"/admin/accounts/user/{ana.pk}/change/"
    form = moderator.get(change).context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None}
    data.update(
        display_name="Komputer (silny)", date_joined_0="2026-01-01", date_joined_1="00:00:00"
    )

    response = moderator.post(change, data)

    assert response.status_code == 200
    assert "belongs to the computer opponents" in response.content.decode()
    assert User.objects.get(pk=ana.pk).display_name == "Anna"
