"""A player's private notes on their seat (Digit Code's C2): a table of their own, one row per
seat, outside the log."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0015_game_kind'),
    ]

    operations = [
        migrations.CreateModel(
            name='SeatNotes',
            fields=[
                ('seat', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='private_notes', serialize=False, to='games.seat', verbose_name='seat')),
                ('notes', models.JSONField(verbose_name='private notes')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated at')),
            ],
            options={
                'verbose_name': 'private notes',
                'verbose_name_plural': 'private notes',
            },
        ),
    ]
