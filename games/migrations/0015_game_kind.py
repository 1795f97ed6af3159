"""The game played at a table (games/registry.py): every table so far is Bahama Taxi's, so the
column's default names it; other games' table options go in a JSON column their registration
validates (Bahama Taxi keeps its own columns)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0014_seat_user_game")]

    operations = [
        migrations.AddField(
            model_name="game",
            name="kind",
            field=models.CharField(
                db_index=True, default="bahama-taxi", max_length=32, verbose_name="game"
            ),
        ),
        migrations.AddField(
            model_name="game",
            name="game_options",
            field=models.JSONField(blank=True, default=dict, verbose_name="game options"),
        ),
    ]
