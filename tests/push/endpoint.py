"""A push service of our own for the tests: an HTTP server on a thread that plays the part of
a browser vendor's push service *and* of the browser behind it.

Like a browser, it makes the subscription's keys (a P-256 key pair and a 16-byte auth secret,
RFC 8291) and hands out `subscription()` as `PushSubscription.toJSON()` does. Like a push
service, it takes the POSTs the server sends to the endpoint, answers with the status the test
sets (201 by default; a queue of answers first, if given), and checks the VAPID header
(RFC 8292: an ES256 JWT whose signature, audience and expiry it verifies, with the key `k`).
Like the browser, it decrypts each body (aes128gcm, with `http_ece`, the private key and the
auth secret) into the JSON the server pushed.

It listens on 127.0.0.1, plain http unless given a TLS context (`tls`, with the certificate's
names; `sni` records the names clients asked for). `host` is the name its subscription's URL
says (the address by default): with another name, the test resolves it to 127.0.0.1.
`Listener` is a bare TCP port that only counts who connects, for what must never be reached.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import select
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class VapidRefused(AssertionError):
    pass


def vapid_claims(authorization: str, *, audience: str) -> tuple[dict, str]:
    """The claims of a `vapid t=<jwt>, k=<key>` header after checking its ES256 signature
    with `k`, its audience and expiry; and `k`. Raises VapidRefused otherwise."""
    scheme, _, params = authorization.partition(" ")
    if scheme.lower() != "vapid":
        raise VapidRefused(f"not a VAPID header: {authorization!r}")
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    token, key = fields["t"], fields["k"]
    header_b64, claims_b64, signature_b64 = token.split(".")
    header = json.loads(unb64url(header_b64))
    if header.get("alg") != "ES256":
        raise VapidRefused(f"alg {header.get('alg')}")
    signature = unb64url(signature_b64)
    if len(signature) != 64:
        raise VapidRefused("an ES256 signature is r || s, 64 bytes")
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(key))
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    try:
        public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature as error:
        raise VapidRefused("bad signature") from error
    claims = json.loads(unb64url(claims_b64))
    if claims.get("aud") != audience:
        raise VapidRefused(f"aud {claims.get('aud')!r}, not {audience!r}")
    if not time.time() < claims.get("exp", 0) <= time.time() + 24 * 3600:
        raise VapidRefused(f"exp {claims.get('exp')}")
    return claims, key


@dataclass
class Received:
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes
    answered: int
    payload: dict | None = None  # decrypted
    claims: dict | None = None
    vapid_key: str | None = None
    problem: str | None = None  # what made this push service refuse it


@dataclass
class PushEndpoint:
    """`with PushEndpoint() as endpoint:` … `endpoint.subscription()`, `endpoint.received`."""

    status: int = 201
    answers: list[int] = field(default_factory=list)  # answered first, in order
    received: list[Received] = field(default_factory=list)
    headers: dict[str, str] = field(default_factory=dict)  # sent with every answer
    host: str = "127.0.0.1"
    tls: ssl.SSLContext | None = None
    sni: list[str | None] = field(default_factory=list)

    def __post_init__(self):
        self.private_key = ec.generate_private_key(ec.SECP256R1())
        self.auth_secret = os.urandom(16)
        self.name = secrets.token_hex(8)
        self.lock = threading.Lock()
        self.arrived = threading.Condition(self.lock)
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {name.lower(): value for name, value in self.headers.items()}
                endpoint._take(self.path, headers, body, self)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        scheme = "http"
        if self.tls is not None:
            scheme = "https"
            self.tls.sni_callback = lambda _socket, name, _context: self.sni.append(name)
            self.server.socket = self.tls.wrap_socket(self.server.socket, server_side=True)
        self.origin = f"{scheme}://{self.host}:{self.port}"

    def __enter__(self) -> PushEndpoint:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def subscription(self, name: str | None = None) -> dict:
        """As a browser's `PushSubscription.toJSON()`."""
        public = self.private_key.public_key().public_bytes(
            Encoding.X962, PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": f"{self.origin}/push/{name or self.name}",
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(self.auth_secret)},
        }

    def _take(self, path: str, headers: dict, body: bytes, handler) -> None:
        with self.lock:
            status = self.answers.pop(0) if self.answers else self.status
        entry = Received(path=path, headers=headers, body=body, answered=status)
        try:
            entry.claims, entry.vapid_key = vapid_claims(
                headers.get("authorization", ""), audience=self.origin
            )
            if headers.get("content-encoding") != "aes128gcm":
                raise VapidRefused(f"Content-Encoding {headers.get('content-encoding')!r}")
            if not headers.get("ttl", "").isdigit():
                raise VapidRefused("no TTL")
            plain = http_ece.decrypt(
                body,
                private_key=self.private_key,
                auth_secret=self.auth_secret,
                version="aes128gcm",
            )
            entry.payload = json.loads(plain)
        except Exception as error:  # noqa: BLE001 - a push service refuses, it does not crash
            entry.problem = repr(error)
            status = entry.answered = 400
        with self.arrived:  # recorded before the answer: the sender's call returns after it
            self.received.append(entry)
            self.arrived.notify_all()
        handler.send_response(status)
        for name, value in self.headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        """Block until `count` pushes have arrived (a live worker sends them)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, timeout=timeout)
            return list(self.received)

    def payloads(self) -> list[dict]:
        problems = [r.problem for r in self.received if r.problem]
        assert not problems, problems
        return [r.payload for r in self.received if r.answered < 300]


class Listener:
    """`with Listener("127.0.0.1") as target:` a TCP port that accepts and counts connections
    (`target.connections`, which also counts one the kernel holds but no one accepted yet),
    answering nothing: what a push must never reach."""

    def __init__(self, address: str = "127.0.0.1"):
        self.socket = socket.socket(socket.AF_INET6 if ":" in address else socket.AF_INET)
        self.socket.bind((address, 0))
        self.socket.listen(16)
        self.address = address
        self.port = self.socket.getsockname()[1]
        self._accepted = 0
        self._lock = threading.Lock()
        self._stopped = threading.Event()

    @property
    def connections(self) -> int:
        with self._lock:
            pending = select.select([self.socket], [], [], 0)[0]
            return self._accepted + (1 if pending else 0)

    def _accept(self) -> None:
        while not self._stopped.is_set():
            if not select.select([self.socket], [], [], 0.05)[0]:
                continue
            with self._lock:
                try:
                    peer, _ = self.socket.accept()
                except OSError:
                    return
                self._accepted += 1
            peer.close()

    def __enter__(self) -> Listener:
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stopped.set()
        self._thread.join()
        self.socket.close()
