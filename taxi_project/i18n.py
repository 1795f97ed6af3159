"""Language plumbing shared by every page: the scripts' catalogue and the language switcher.

The scripts' words live in the `djangojs` domain, except the notification sentences: those are
games/wording.py's, and games/static/web/wording.js asks for the very same msgids, so the
catalogue served to the scripts adds the project's `django` domain. One translation then serves
the server's log, e-mails and replay viewer and the page's log alike (docs/i18n.md).
"""

from __future__ import annotations

import gettext as gettext_module

from django.conf import settings
from django.http import HttpResponseRedirect
from django.utils import translation
from django.utils.translation import trans_real
from django.views.decorators.http import require_POST
from django.views.i18n import JavaScriptCatalog, set_language


class ScriptCatalog(JavaScriptCatalog):
    """`djangojs` from LOCALE_PATHS, plus the project's own `django` catalogue (not Django's,
    which would ship the admin's thousands of strings to every page)."""

    def get(self, request, *args, **kwargs):
        language = translation.get_language()
        paths = [str(path) for path in settings.LOCALE_PATHS]
        self.translation = trans_real.DjangoTranslation(
            language, domain="djangojs", localedirs=paths
        )
        for path in paths:
            self.translation.merge(
                gettext_module.translation(
                    "django", path, [translation.to_locale(language)], fallback=True
                )
            )
        return self.render_to_response(self.get_context_data(**kwargs))


@require_POST
def language_set(request):
    """Django's set_language (cookie, then back to `next`), and for a signed-in user the
    profile's language too: their choice then follows them to the API, e-mails and other
    browsers, and the profile (which outranks the cookie) never undoes the switch."""
    response = set_language(request)
    code = request.POST.get("language", "")
    user = request.user
    if (
        isinstance(response, HttpResponseRedirect)
        and user.is_authenticated
        and code in dict(settings.LANGUAGES)
    ):
        from accounts.services import user_profile_update

        user_profile_update(user=user, language=code)
    return response
