"""The display name's confusable skeleton, unique (accounts/names.py).

Existing accounts get theirs in order of sign-up; where two already look alike, the earlier
keeps the look and the later is left without a skeleton (NULL), so its name still shows but
no one else can take that look, and its next rename is checked like anyone's."""

from django.db import migrations, models


def fill_skeletons(apps, schema_editor):
    from accounts.names import display_name_skeleton

    User = apps.get_model("accounts", "User")
    taken = set()
    for user in User.objects.order_by("pk").only("pk", "display_name").iterator():
        skeleton = display_name_skeleton(user.display_name)
        if skeleton is None or skeleton in taken:
            continue
        taken.add(skeleton)
        User.objects.filter(pk=user.pk).update(display_name_skeleton=skeleton)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_verbose_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="display_name_skeleton",
            field=models.TextField(
                blank=True, editable=False, null=True, unique=True, verbose_name="display name look"
            ),
        ),
        migrations.RunPython(fill_skeletons, migrations.RunPython.noop),
    ]
