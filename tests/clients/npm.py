"""The node tools of tests/clients (package.json), installed exactly as package-lock.json pins
them: `npm ci` once per version of the lock (npm's cache serves it offline once filled).
`.ci/run` runs the same `npm ci` first on a clean machine."""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

CLIENTS = Path(__file__).resolve().parent
BIN = CLIENTS / "node_modules" / ".bin"


def env() -> dict[str, str]:
    """The environment for the tools: no telemetry or update check (nothing leaves the
    machine)."""
    return {
        **os.environ,
        "REDOCLY_TELEMETRY": "off",
        "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true",
        "NO_UPDATE_NOTIFIER": "1",
        "npm_config_update_notifier": "false",
    }


def installed() -> Path:
    """node_modules/.bin, with what the lock pins (installed now if it is not yet)."""
    if shutil.which("npm") is None or shutil.which("node") is None:
        raise RuntimeError(
            "tests/clients needs node (20.19 or later) and npm (.ci/run installs them)"
        )
    lock = (CLIENTS / "package-lock.json").read_bytes()
    stamp = CLIENTS / "node_modules" / f".installed-{hashlib.sha256(lock).hexdigest()[:16]}"
    with open(CLIENTS / ".npm-ci.lock", "w") as guard:  # another test process may install too
        fcntl.flock(guard, fcntl.LOCK_EX)
        if not stamp.exists():
            done = subprocess.run(
                ["npm", "ci", "--no-audit", "--no-fund", "--prefer-offline"],
                cwd=CLIENTS,
                env=env(),
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode:
                raise RuntimeError(f"npm ci failed:\n{done.stdout}\n{done.stderr}")
            stamp.touch()
    return BIN
