from django.db import migrations

from games import db_guards


def install(apps, schema_editor):
    db_guards.install(schema_editor.connection, "games_gameentry", strict=True)


def uninstall(apps, schema_editor):
    db_guards.uninstall(schema_editor.connection, "games_gameentry")


class Migration(migrations.Migration):
    dependencies = [("games", "0001_game_seat_entry")]
    operations = [migrations.RunPython(install, uninstall)]
