"""The server's VAPID key pair (RFC 8292): it signs every Web Push request, and browsers
subscribe with its public half (`applicationServerKey`), so a push service accepts pushes for
a subscription only from the server that made it.

From the environment: `VAPID_PRIVATE_KEY` (the 32-byte P-256 scalar, base64url, as
`web-push generate-vapid-keys` or `vapid --gen` print it; base64url DER and PEM are read too),
`VAPID_PUBLIC_KEY` (optional: derived from the private key, and refused if it does not match),
`VAPID_SUBJECT` (a `mailto:` or `https:` contact for the push services). With none set and
DEBUG on, a development pair is generated once and kept in `var/vapid-dev-private-key.txt`
(never committed: `var/` is ignored); with DEBUG off there is no key and Web Push is off.
"""

from __future__ import annotations

import base64
import functools
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from py_vapid import Vapid

DEV_KEY_FILE = "vapid-dev-private-key.txt"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


@dataclass(frozen=True)
class VapidKeys:
    vapid: Vapid  # the signer pywebpush takes
    public_key: str  # base64url of the uncompressed point: the browsers' applicationServerKey
    subject: str


def _from_text(text: str) -> Vapid:
    text = text.strip()
    if "-----BEGIN" in text:
        return Vapid.from_pem(text.encode())
    return Vapid.from_string(private_key=text)


def _raw_private(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def _dev_private_key() -> str:
    path = Path(settings.VAR_DIR) / DEV_KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        text = _raw_private(ec.generate_private_key(ec.SECP256R1()))
        # written whole under another name, then renamed: concurrent first starts agree
        partial = path.with_name(f"{path.name}.{os.getpid()}")
        partial.write_text(text + "\n")
        os.chmod(partial, 0o600)
        if not path.exists():
            partial.replace(path)
        else:
            partial.unlink()
    return path.read_text()


@functools.cache
def vapid_keys() -> VapidKeys | None:
    """The configured pair, or the development pair in DEBUG, or None (Web Push is off)."""
    private = settings.VAPID_PRIVATE_KEY
    if not private:
        if not settings.VAPID_DEV_KEYS:  # DEBUG was on when the settings loaded
            return None
        private = _dev_private_key()
    try:
        vapid = _from_text(private)
    except Exception as error:  # noqa: BLE001 - any parse failure is a configuration error
        raise ImproperlyConfigured(f"VAPID_PRIVATE_KEY cannot be read: {error}") from error
    public = b64url(vapid.public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))
    if settings.VAPID_PUBLIC_KEY and settings.VAPID_PUBLIC_KEY.rstrip("=") != public:
        raise ImproperlyConfigured("VAPID_PUBLIC_KEY is not the public half of VAPID_PRIVATE_KEY.")
    return VapidKeys(vapid=vapid, public_key=public, subject=settings.VAPID_SUBJECT)
