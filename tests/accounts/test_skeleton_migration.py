"""Migration 0006 gives existing accounts their display name's look: where two
already look alike, the earlier account keeps the look and the later one is left without, so
the unique index can be built on a database that holds look-alikes already."""

from __future__ import annotations

import pytest

from tests.migrations import migrate, migrated_back

BEFORE = [("accounts", "0005_verbose_names")]
AFTER = [("accounts", "0006_display_name_skeleton")]


@pytest.mark.django_db(transaction=True)
def test_existing_look_alikes_keep_their_names_and_the_first_keeps_the_look():
    with migrated_back(BEFORE) as old_apps:
        User = old_apps.get_model("accounts", "User")
        names = {"first": "Anna", "second": "ANNА", "other": "Ben", "blank": ""}  # Cyrillic А
        ids = {key: User.objects.create(username=key, display_name=name).pk
               for key, name in names.items()}  # fmt: skip

        User = migrate(AFTER).get_model("accounts", "User")

        looks = dict(User.objects.values_list("pk", "display_name_skeleton"))
        assert looks[ids["first"]] == "anna"
        assert looks[ids["second"]] is None  # its name stays; the look is the first's
        assert looks[ids["other"]] == "ben"
        assert looks[ids["blank"]] is None
        assert User.objects.get(pk=ids["second"]).display_name == "ANNА"
