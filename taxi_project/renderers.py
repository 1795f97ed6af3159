"""JSON for the API that never fails to encode.

A lone surrogate (`"\\ud800"` in a request's JSON) decodes to a Python string that UTF-8 cannot
encode. DRF's renderer then raises while rendering the very error that quotes the input back
("… is not a valid choice"), and the client gets a 500 instead of its 400. Here, only when
that happens, such characters are rendered as U+FFFD (the replacement character).
"""

from __future__ import annotations

from rest_framework import renderers


def _without_surrogates(data):
    if isinstance(data, str):
        return "".join("\ufffd" if "\ud800" <= char <= "\udfff" else char for char in data)
    if isinstance(data, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_without_surrogates(item) for item in data]
    return data


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        try:
            return super().render(data, accepted_media_type, renderer_context)
        except UnicodeEncodeError:
            clean = _without_surrogates(data)
            return super().render(clean, accepted_media_type, renderer_context)
