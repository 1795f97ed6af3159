"""Moderation pages in the admin: one form per kind of target, each calling one service of
games.moderation (which writes the audit record). Reachable with the `games.moderate`
permission, which the "moderators" group holds."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import APIException

from games import registry

REASON = forms.CharField(
    label=_("Reason"), widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=1000
)


class GameModerationForm(forms.Form):
    action = forms.ChoiceField(
        label=_("Action"),
        choices=[
            ("zombify", _("Hand a seat to the autopilot")),
            ("restore", _("Give a seat back to its player")),
            ("abort", _("Abort the game (no result)")),
        ],
    )
    seat = forms.IntegerField(
        label=_("Seat"), min_value=0, max_value=7, required=False, help_text=_("0-based")
    )
    reason = REASON

    def clean(self):
        data = super().clean()
        if data.get("action") in ("zombify", "restore") and data.get("seat") is None:
            self.add_error("seat", _("Which seat?"))
        return data


class UserModerationForm(forms.Form):
    action = forms.ChoiceField(
        label=_("Action"),
        choices=[
            ("suspend", _("Suspend for a period")),
            ("ban", _("Ban")),
            ("lift", _("Lift a suspension or ban")),
        ],
    )
    hours = forms.IntegerField(
        label=_("Hours"),
        min_value=1,
        max_value=24 * 365 * 5,
        required=False,
        help_text=_("suspension length"),
    )
    reason = REASON

    def clean(self):
        data = super().clean()
        if data.get("action") == "suspend" and not data.get("hours"):
            self.add_error("hours", _("How long?"))
        return data


class ReasonForm(forms.Form):
    reason = REASON


def moderation_view(model_admin, request, object_id, *, form_class, title, perform, summary=""):
    """GET: the form; POST: run `perform(moderator, obj, data)`, then back to the object."""
    if not request.user.has_perm("games.moderate"):
        raise PermissionDenied
    obj = get_object_or_404(model_admin.model, pk=object_id)
    opts = model_admin.model._meta
    back_url = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    form = form_class(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            perform(request.user, obj, form.cleaned_data)
        except (APIException, *registry.engine_errors()) as error:
            form.add_error(None, getattr(error, "message", None) or str(error.detail))
        else:
            messages.success(request, f"{title}: done, and recorded.")
            return redirect(back_url)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": title,
        "form": form,
        "target": obj,
        "back_url": back_url,
        "summary": summary,
        "opts": opts,
    }
    return TemplateResponse(request, "admin/moderation_form.html", context)


def moderation_url(model_admin, name: str, view):
    opts = model_admin.model._meta
    return path(
        f"<path:object_id>/{name}/",
        model_admin.admin_site.admin_view(view),
        name=f"{opts.app_label}_{opts.model_name}_{name}",
    )


def suspension_end(hours: int):
    return timezone.now() + timedelta(hours=hours)
