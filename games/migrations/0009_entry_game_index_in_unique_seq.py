"""The log's game_id index goes: the unique (game, seq) index starts with game_id, so every
lookup by game uses that one, and each appended entry updates one index fewer."""

import django.db.models.deletion
from django.db import migrations, models

from games import db_guards


def guard(apps, schema_editor):
    # SQLite alters a column by rebuilding the table, which drops its triggers: put them back
    # (installing is idempotent, so PostgreSQL's are left as they are)
    db_guards.install(schema_editor.connection, "games_gameentry", strict=True)


class Migration(migrations.Migration):
    dependencies = [("games", "0008_verbose_names")]

    operations = [
        migrations.AlterField(
            model_name="gameentry",
            name="game",
            field=models.ForeignKey(
                db_index=False,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="entries",
                to="games.game",
                verbose_name="game",
            ),
        ),
        migrations.RunPython(guard, migrations.RunPython.noop),
    ]
