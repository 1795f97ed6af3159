#!/usr/bin/env python3
"""What a newcomer waits for: the README's two commands, each in a fresh clone. Standard
library only (it runs before any .venv exists).

    python3 bench/fresh_clone.py                      # clones this repository's HEAD
    python3 bench/fresh_clone.py --json bench/out/fresh_clone.json
    python3 bench/fresh_clone.py --source URL --ref main --no-warm-up

1. `python3 dev.py serve` in a fresh clone: seconds until `/healthz` answers 200 (goal: 60 s
   with a warm pip cache), split into installing .venv, migrating and starting; then that what
   serve installed runs: a page (`/login`) answers 200 as HTML under the Content-Security-Policy,
   the Celery worker serve started says it is ready and runs a task (beat's deadline tick), and
   no test tool is in .venv (pytest, playwright, daphne, hypothesis, schemathesis...).
2. `python3 dev.py test --quick -v` in another fresh clone: seconds until the first test's
   result, and until the subset ends.

The warm-up (skip it with --no-warm-up) first installs the test lock once in a throw-away clone,
so that pip's cache holds every wheel, as on a developer's machine. Both commands run in the
embedded default (no DATABASE_URL, REDIS_URL or REQUIRE_SERVICES), as the README's first screen
does. Figures go to BENCHMARKS.md; run it alone on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEST_TOOLS = ("pytest", "playwright", "daphne", "hypothesis", "schemathesis", "time_machine")
TEST_TOOLS += ("polib", "openapi_spec_validator", "openapi_python_client", "ruff")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.pop("REQUIRE_SERVICES", None)
    env.pop("VIRTUAL_ENV", None)
    return env | {"PYTHONUNBUFFERED": "1"}


def clone(source: str, ref: str | None, into: Path) -> str:
    subprocess.run(["git", "clone", "-q", "--no-local", source, str(into)], check=True)
    if ref:
        subprocess.run(["git", "-C", str(into), "checkout", "-q", ref], check=True)
    head = subprocess.run(
        ["git", "-C", str(into), "rev-parse", "--short", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    )
    return head.stdout.strip()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Watched:
    """A command whose output lines are read as they come, each with its time since start."""

    def __init__(self, command: list[str], cwd: Path, transcript: Path):
        self.start = time.monotonic()
        self.lines: list[tuple[float, str]] = []
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=environment(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            start_new_session=True,
        )
        self.transcript = transcript.open("w")
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self.lines.append((time.monotonic() - self.start, line.rstrip("\n")))
            self.transcript.write(line)
        self.transcript.flush()

    def first(self, pattern: str) -> float | None:
        """Seconds from the start to the first line that matches (None: none yet)."""
        regex = re.compile(pattern)
        return next((round(t, 1) for t, line in list(self.lines) if regex.search(line)), None)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)  # dev.py serve stops its children itself
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)  # the session started above
                self.process.wait()
        self.reader.join(timeout=5)
        self.transcript.close()


def get(url: str, timeout: float = 2) -> tuple[int, Message, bytes]:
    """Status, headers (their names in any case) and body."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def warm_up(source: str, ref: str | None, work: Path) -> None:
    log("warm-up: installing requirements/test.txt once in a throw-away clone")
    into = work / "warm-up"
    clone(source, ref, into)
    subprocess.run(
        [sys.executable, "dev.py", "test", "--collect-only", "-q", "tests/test_dependencies.py"],
        cwd=into,
        env=environment(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    shutil.rmtree(into)


def measure_serve(source: str, ref: str | None, work: Path, timeout: float) -> dict:
    into = work / "serve"
    commit = clone(source, ref, into)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    log(f"serve: python3 dev.py serve --port {port} in a fresh clone of {commit}")
    serve = Watched(
        [sys.executable, "dev.py", "serve", "--port", str(port)], into, work / "serve.log"
    )
    result: dict = {"commit": commit}
    try:
        healthy = None
        while time.monotonic() - serve.start < timeout and serve.process.poll() is None:
            try:
                if get(f"{base}/healthz", timeout=1)[0] == 200:
                    healthy = time.monotonic() - serve.start
                    break
            except OSError:
                pass
            time.sleep(0.2)
        if healthy is None:
            raise SystemExit(f"serve: no 200 from /healthz in {timeout:.0f} s ({work}/serve.log)")
        result["healthz_seconds"] = round(healthy, 1)
        result["installed_seconds"] = serve.first(r"^Operations to perform")
        result["migrated_seconds"] = serve.first(r"Uvicorn running|Started server process")
        status, headers, _ = get(f"{base}/login")
        result["page"] = {
            "status": status,
            "html": headers.get("Content-Type", "").startswith("text/html"),
            "csp": "script-src 'self'" in headers.get("Content-Security-Policy", ""),
        }
        # the worker (with embedded beat) starts beside uvicorn; beat ticks every second
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and serve.first(r"Task \S+ succeeded") is None:
            time.sleep(0.5)
        result["worker_ready_seconds"] = serve.first(r"celery@\S+ ready")
        result["first_task_seconds"] = serve.first(r"Task \S+ succeeded")
    finally:
        serve.stop()
    venv_python = into / ".venv" / "bin" / "python"
    check = (
        "import importlib.util, importlib.metadata as m, json, sys; "
        "print(json.dumps({'present': [t for t in sys.argv[1:] if importlib.util.find_spec(t)],"
        " 'distributions': len({d.metadata['Name'].lower() for d in m.distributions()})}))"
    )
    found = subprocess.run(
        [str(venv_python), "-c", check, *TEST_TOOLS], check=True, capture_output=True, text=True
    )
    result |= {"venv": json.loads(found.stdout)}
    size = subprocess.run(["du", "-sm", str(into / ".venv")], capture_output=True, text=True)
    result["venv"]["megabytes"] = int(size.stdout.split()[0])
    speed = subprocess.run(
        [str(venv_python), "-c", "from bench._common import machine_speed; print(machine_speed())"],
        cwd=into,
        capture_output=True,
        text=True,
    )
    result["machine_speed_ms"] = float(speed.stdout) if speed.returncode == 0 else None
    return result


def measure_test(source: str, ref: str | None, work: Path, timeout: float) -> dict:
    into = work / "test"
    clone(source, ref, into)
    log("test: python3 dev.py test --quick -v in another fresh clone")
    run = Watched(
        [sys.executable, "dev.py", "test", "--quick", "-v", "-p", "no:cacheprovider"],
        into,
        work / "test.log",
    )
    try:
        run.process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        log(f"test: still running after {timeout:.0f} s, stopped")
    finally:
        ended = time.monotonic() - run.start
        run.stop()
    summary = next((line for _, line in reversed(run.lines) if re.search(r" in [\d.]+s", line)), "")
    return {
        "first_result_seconds": run.first(r" (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b"),
        "installed_seconds": run.first(r"^=+ test session starts"),
        "total_seconds": round(ended, 1),
        "summary": summary.strip("= "),
        "exit_status": run.process.returncode,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(ROOT), help="what to clone (default: this repo)")
    parser.add_argument("--ref", help="commit or branch to check out (default: the clone's HEAD)")
    parser.add_argument("--no-warm-up", action="store_true")
    parser.add_argument("--skip-test", action="store_true", help="measure serve only")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per command")
    parser.add_argument("--keep", action="store_true", help="keep the clones and their logs")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="fresh-clone-"))
    report: dict = {
        "python": platform.python_version(),
        "load_average_before": os.getloadavg()[0],
        "warm_up": not args.no_warm_up,
    }
    try:
        if not args.no_warm_up:
            warm_up(args.source, args.ref, work)
        report["serve"] = measure_serve(args.source, args.ref, work, args.timeout)
        if not args.skip_test:
            report["test"] = measure_test(args.source, args.ref, work, args.timeout)
    finally:
        if args.keep:
            log(f"clones and logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)

    serve = report["serve"]
    print(
        f"fresh clone of {serve['commit']}, Python {report['python']}, load average before "
        f"{report['load_average_before']:.2f}, machine speed {serve['machine_speed_ms']} ms, "
        f"pip cache {'warmed' if report['warm_up'] else 'as found'}"
    )
    print(
        f"serve: /healthz 200 after {serve['healthz_seconds']} s (goal <= 60 s): .venv "
        f"installed at {serve['installed_seconds']} s, migrated at {serve['migrated_seconds']} s"
    )
    page = serve["page"]
    print(
        f"serve: /login {page['status']}, HTML {page['html']}, CSP {page['csp']}; Celery worker "
        f"ready at {serve['worker_ready_seconds']} s, first task done at "
        f"{serve['first_task_seconds']} s"
    )
    venv = serve["venv"]
    print(
        f"serve's .venv: {venv['distributions']} distributions, {venv['megabytes']} MB; "
        f"test tools present: {', '.join(venv['present']) or 'none'}"
    )
    if "test" in report:
        test = report["test"]
        print(
            f"test --quick: first result after {test['first_result_seconds']} s (.venv "
            f"installed at {test['installed_seconds']} s), ended after {test['total_seconds']} s:"
            f" {test['summary']} (exit {test['exit_status']})"
        )
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    ok = (
        page["status"] == 200
        and page["csp"]
        and not venv["present"]
        and serve["first_task_seconds"] is not None
        and report.get("test", {}).get("exit_status", 0) == 0
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
