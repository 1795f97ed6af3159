"""A player's games, newest first, a page at a time: "my games" reads the player's seats in
game order through this index and stops after a page (taxi_project/pagination.py; the seat's
user index alone made it read and sort every game the player ever sat at)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("games", "0013_game_archive")]

    operations = [
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(fields=["user", "game"], name="seat_user_game"),
        ),
    ]
