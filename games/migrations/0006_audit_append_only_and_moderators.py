from django.db import migrations

from games import db_guards

MODERATOR_PERMISSIONS = [
    ("games", "moderate"),
    ("accounts", "view_user"),
    ("games", "view_game"),
    ("games", "view_seat"),
    ("games", "view_gameentry"),
    ("games", "view_chatmessage"),
    ("games", "view_report"),
    ("games", "view_moderationaction"),
]


def install(apps, schema_editor):
    db_guards.install(schema_editor.connection, "games_moderationaction")


def uninstall(apps, schema_editor):
    db_guards.uninstall(schema_editor.connection, "games_moderationaction")


def moderators_group(apps, schema_editor):
    """The "moderators" group holds exactly what moderating needs: seeing everything, and the
    one permission that allows the moderation actions. No change or delete permissions."""
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    group, _ = Group.objects.get_or_create(name="moderators")
    group.permissions.set(
        [
            Permission.objects.get(content_type__app_label=app, codename=codename)
            for app, codename in MODERATOR_PERMISSIONS
        ]
    )


def no_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name="moderators").delete()


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_moderation"),
        ("accounts", "0003_email_on_turn"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]
    operations = [
        migrations.RunPython(install, uninstall),
        migrations.RunPython(moderators_group, no_group),
    ]
