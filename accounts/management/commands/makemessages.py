"""`makemessages` with the project's exclusions, so every run extracts the same strings.

* Never extracted: the virtualenv, collected static files, tests and benchmarks.
* games/static/web/wording.js stays out of `djangojs`: its sentences are games/wording.py's
  msgids, translated once in `django` and served to the scripts with it (taxi_project/i18n.py);
  tests/i18n checks that each of its msgids is in the `django` catalogue.
"""

from django.core.management.commands import makemessages

ALWAYS_IGNORED = ["var", "bench", "tests", "node_modules", "docker"]
SHARED_WITH_PYTHON = ["games/static/web/wording.js"]


class Command(makemessages.Command):
    def handle(self, *args, **options):
        ignored = list(options.get("ignore_patterns") or []) + ALWAYS_IGNORED
        if options.get("domain") == "djangojs":
            ignored += SHARED_WITH_PYTHON
        options["ignore_patterns"] = ignored
        return super().handle(*args, **options)
