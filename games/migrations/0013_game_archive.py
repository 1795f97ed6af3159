"""Archived game logs (games/archive.py): the archive table is append-only, and the log's
triggers are replaced by ones that let an entry be deleted once an archive row covers it."""

import django.db.models.deletion
from django.db import migrations, models

from games import db_guards


def guard(apps, schema_editor):
    connection = schema_editor.connection
    # SQLite's triggers are created only if missing: drop the log's to put the new ones in
    db_guards.uninstall(connection, "games_gameentry")
    db_guards.install(connection, "games_gameentry")
    db_guards.install(connection, "games_gamearchive")


def unguard(apps, schema_editor):
    connection = schema_editor.connection
    db_guards.uninstall(connection, "games_gamearchive")
    # the log's triggers as before the archive: they must not name a table about to be dropped
    db_guards.uninstall(connection, "games_gameentry")
    db_guards.install(connection, "games_gameentry", strict=True)


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0012_scale_indexes'),
    ]

    operations = [
        migrations.CreateModel(
            name='GameArchive',
            fields=[
                ('game', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, primary_key=True, related_name='archive', serialize=False, to='games.game', verbose_name='game')),
                ('entries', models.PositiveIntegerField(verbose_name='entries')),
                ('digest', models.CharField(max_length=64, verbose_name='SHA-256 of the uncompressed log')),
                ('data', models.BinaryField(verbose_name='compressed log')),
                ('archived_at', models.DateTimeField(auto_now_add=True, verbose_name='archived at')),
            ],
            options={
                'verbose_name': 'archived game log',
                'verbose_name_plural': 'archived game logs',
            },
        ),
        migrations.RunPython(guard, unguard),
    ]
