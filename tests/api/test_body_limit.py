"""Request bodies over DATA_UPLOAD_MAX_MEMORY_SIZE are refused before Django reads them
(taxi_project/body_limit.py), driven through the ASGI application as a server drives it:
from `Content-Length` without reading a byte, while streaming when there is no length, and
whatever the content type (multipart files count)."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync

from taxi_project.asgi import application


def _call(path: str, chunks: list[bytes], headers: list[tuple[bytes, bytes]]):
    """Send one HTTP request to the ASGI app; (status, body, chunks the app read)."""
    sent: list[dict] = []
    read = 0

    async def receive():
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1],
                    "more_body": read < len(chunks)}  # fmt: skip
        await asyncio.Event().wait()  # a client waiting for its answer never goes away

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    async_to_sync(application)(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], body, read


def test_a_declared_length_over_the_limit_is_refused_without_reading(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    chunks = [b"x" * 600, b"x" * 600]
    status, body, read = _call(
        "/api/v1/tables",
        chunks,
        [(b"content-length", b"1200"), (b"content-type", b"application/json")],  # fmt: skip
    )
    assert status == 413 and json.loads(body)["code"] == "request_too_large"
    assert read == 0


def test_a_chunked_body_is_refused_once_it_passes_the_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    chunks = [b"x" * 400] * 10  # 4,000 bytes, no length declared
    status, body, read = _call("/api/v1/tables", chunks, [(b"content-type", b"application/json")])
    assert status == 413 and json.loads(body)["code"] == "request_too_large"
    assert read == 3  # 1,200 bytes: the third chunk passed the limit; nothing more was read


def test_multipart_file_parts_count(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
    boundary = b"b0undary"
    part = (
        b"--" + boundary + b'\r\nContent-Disposition: form-data; name="f"; filename="a.bin"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n" + b"\0" * (5 * 1024 * 1024) + b"\r\n"
        b"--" + boundary + b"--\r\n"
    )
    chunks = [part[i : i + 65536] for i in range(0, len(part), 65536)]
    kind = (b"content-type", b"multipart/form-data; boundary=" + boundary)
    status, _, read = _call("/api/v1/me", chunks, [kind])
    assert status == 413 and read == 2
    status, _, read = _call("/api/v1/me", chunks, [kind, (b"content-length", b"%d" % len(part))])
    assert status == 413 and read == 0


@pytest.mark.django_db  # a request in Django checks the thread's database connection first
def test_a_body_within_the_limit_reaches_django(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    chunks = [b"x" * 500, b"x" * 500]
    status, _, read = _call("/no-such-page/", chunks, [(b"content-type", b"text/plain")])
    assert status == 404 and read == 2  # Django read it all and answered
