"""The finished games, newest first (the lobby's list, the finished games API, the landing
page's game to watch), read off an index: without it every finished game was read and sorted
to show twenty (bench/scale.py; tests/scale/test_indexes.py)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0011_bots_and_ratings")]

    operations = [
        migrations.AddIndex(
            model_name="game",
            index=models.Index(
                condition=models.Q(("status__in", ["finished", "aborted"])),
                fields=["finished_at"],
                name="game_finished_recent",
            ),
        ),
    ]
