#!/usr/bin/env python3
"""The one entry point for developers. Needs only Python 3.11+ (stdlib only).

    python3 dev.py serve [uvicorn args...]   migrate, then serve on http://127.0.0.1:8000
                                             with a Celery worker (+beat) beside it
    python3 dev.py test [pytest args...]     run the test suite

Both first make sure .venv exists and holds the project as installed from the current
pyproject.toml (re-installed only when that file changes).
"""

from __future__ import annotations  # keeps the version check below reachable on old Pythons

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
VENV_PYTHON = VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
INSTALLED_HASH = VENV / ".installed-hash"


def ensure_venv() -> None:
    if not VENV_PYTHON.exists():
        print("dev.py: creating .venv", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if INSTALLED_HASH.exists() and INSTALLED_HASH.read_text().strip() == wanted:
        return
    print("dev.py: installing the project into .venv (new, or pyproject.toml changed)", flush=True)
    pip = [str(VENV_PYTHON), "-m", "pip", "--disable-pip-version-check"]
    subprocess.run([*pip, "install", "-e", ".[dev]"], cwd=ROOT, check=True)
    INSTALLED_HASH.write_text(wanted + "\n")


def serve(args: list[str]) -> int:
    python = str(VENV_PYTHON)
    subprocess.run([python, "manage.py", "migrate", "--no-input"], cwd=ROOT, check=True)
    (ROOT / "var").mkdir(exist_ok=True)
    server = "-m uvicorn taxi_project.asgi:application --host 127.0.0.1 --port 8000".split()
    commands = [[python, *server, *args]]
    if (ROOT / "taxi_project" / "celery.py").exists():
        # one worker for both queues, the default and the bots' (settings.CELERY_TASK_QUEUES)
        worker = "-m celery -A taxi_project worker -B --loglevel info".split()
        commands.append([python, *worker])
    # SIGTERM (e.g. `kill`) takes the same clean path as Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    children = [subprocess.Popen(command, cwd=ROOT) for command in commands]
    try:
        while all(child.poll() is None for child in children):
            time.sleep(0.5)
        first_to_stop = next(child for child in children if child.returncode is not None)
        return first_to_stop.returncode or 1  # serving is not meant to end by itself
    except KeyboardInterrupt:
        return 0
    finally:
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def test(args: list[str]) -> NoReturn:
    # exec: pytest's exit status becomes ours, and Ctrl-C goes straight to pytest.
    os.chdir(ROOT)
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "pytest", *args])


COMMANDS = {"serve": serve, "test": test}


def main() -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs on whatever python3 is
        sys.exit("dev.py: Python 3.11 or newer is required")
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    ensure_venv()
    # Local work runs in DEBUG (the settings default to production: DEBUG off, SECRET_KEY
    # required); `DEBUG=0 python3 dev.py serve` tries the production settings.
    os.environ.setdefault("DEBUG", "1")
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
