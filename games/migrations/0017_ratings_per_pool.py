"""A rating per (player, rating pool): each game rates into its registration's pool
(`GameKind.rating_pool`) instead of one rating per player for every game.

Every rating and rating change stored so far is kept as the Bahama Taxi pool's (until Digit
Code, the only game): the rows are copied as they are. A rated Digit Code game that ended
before this migration stays counted there; `manage.py rebuild_ratings` reports it (the logs
put it in the Digit Code pool) and `--write` moves it.

The table is made anew under a passing name and renamed once the old one, whose primary key
was the user, is gone: changing a primary key in place is not portable across backends.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

POOL = "bahama-taxi"  # the pool of every rating stored before pools (the registry's default)


def copy_ratings(apps, schema_editor):
    old = apps.get_model("games", "PlayerRating")
    new = apps.get_model("games", "PoolRating")
    rows = (
        new(
            user_id=row.user_id,
            pool=POOL,
            mu=row.mu,
            sigma=row.sigma,
            ordinal=row.ordinal,
            games=row.games,
            updated_at=row.updated_at,
        )
        for row in old.objects.order_by("pk").iterator(chunk_size=1000)
    )
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == 1000:
            new.objects.bulk_create(batch)
            batch = []
    new.objects.bulk_create(batch)


def copy_back(apps, schema_editor):
    """Back to one rating per player: the Bahama Taxi pool's (other pools' are dropped)."""
    old = apps.get_model("games", "PlayerRating")
    new = apps.get_model("games", "PoolRating")
    old.objects.bulk_create(
        [
            old(
                user_id=row.user_id,
                mu=row.mu,
                sigma=row.sigma,
                ordinal=row.ordinal,
                games=row.games,
                updated_at=row.updated_at,
            )
            for row in new.objects.filter(pool=POOL)
        ],
        batch_size=1000,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0016_seat_notes"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="ratingchange",
            name="pool",
            field=models.CharField(default=POOL, max_length=32, verbose_name="rating pool"),
        ),
        migrations.AddIndex(
            model_name="ratingchange",
            index=models.Index(
                fields=["user", "pool", "ended_at"], name="rating_change_user_pool"
            ),
        ),
        migrations.CreateModel(
            name="PoolRating",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "pool",
                    models.CharField(default=POOL, max_length=32, verbose_name="rating pool"),
                ),
                ("mu", models.FloatField(verbose_name="skill")),
                ("sigma", models.FloatField(verbose_name="uncertainty")),
                ("ordinal", models.FloatField(verbose_name="rating")),
                ("games", models.PositiveIntegerField(default=0, verbose_name="rated games")),
                ("updated_at", models.DateTimeField(verbose_name="updated at")),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="ratings",
                        to=settings.AUTH_USER_MODEL,
                        verbose_name="player",
                    ),
                ),
            ],
            options={
                "verbose_name": "player rating",
                "verbose_name_plural": "player ratings",
                "ordering": ["pool", "-ordinal", "user_id"],
                "indexes": [
                    models.Index(fields=["pool", "-ordinal", "user"], name="rating_pool_board")
                ],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("user", "pool"), name="rating_one_per_user_and_pool"
                    )
                ],
            },
        ),
        migrations.RunPython(copy_ratings, copy_back),
        migrations.DeleteModel(name="PlayerRating"),
        migrations.RenameModel(old_name="PoolRating", new_name="PlayerRating"),
    ]
