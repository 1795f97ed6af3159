"""Request bodies over the limit are refused before Django reads them.

Django's ASGI handler spools the whole body to a temporary file before the view runs, and its
own limit (DATA_UPLOAD_MAX_MEMORY_SIZE) is checked only when the body is parsed, and never for
the files of a multipart body. This ASGI middleware stands in front of it and counts every
byte, whatever the content type: a request whose `Content-Length` is over the limit is answered
413 `request_too_large` without reading anything; one without a length (chunked) is counted as
it streams and refused when it passes the limit, and Django is told the client went away (an
`http.disconnect`), so it answers nothing more.
"""

from __future__ import annotations

import json

from django.conf import settings

from taxi_project.api_errors import RequestTooLarge


class BodyLimit:
    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        declared = dict(scope.get("headers") or ()).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            return await _refuse(send)
        received = 0
        refused = False

        async def counted():
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    refused = True
                    await _refuse(send)
                    return {"type": "http.disconnect"}
            return message

        await self.app(scope, counted, send)


async def _refuse(send) -> None:
    error = RequestTooLarge()
    body = json.dumps({"code": str(error.code), "message": error.message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]  # fmt: skip
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
