"""Sampling the live uvicorn workers with py-spy (bench/api.py --py-spy PATH), and a summary.

py-spy (in the `bench` extra: `python3 dev.py bench`) records the collapsed stacks of the
server process and its workers. Only samples of a thread holding the GIL are kept (--gil): a
profile of the Python CPU time, without the threads idling in the event loop or the thread
pool, or waiting on PostgreSQL (psycopg releases the GIL while it waits). Needs ptrace
permission on the workers (root, or kernel.yama.ptrace_scope = 0)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^():]*)(?::\d+)?\)$")


def py_spy() -> str | None:
    here = Path(sys.executable).with_name("py-spy")
    return str(here) if here.exists() else shutil.which("py-spy")


def start(pid: int, seconds: float, path: Path, rate: int = 100) -> subprocess.Popen:
    binary = py_spy()
    if binary is None:
        raise RuntimeError("--py-spy needs py-spy: python3 dev.py bench installs it")
    return subprocess.Popen(
        [
            binary,
            "record",
            "--pid",
            str(pid),
            "--subprocesses",
            "--gil",
            "--nonblocking",
            "--rate",
            str(rate),
            "--duration",
            str(max(int(seconds), 1)),
            "--format",
            "raw",
            "--output",
            str(path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def _short(frame: str) -> str:
    match = _FRAME.match(frame)
    if not match:
        return frame
    file = match["file"]
    for marker in ("site-packages/", "/work/main/", "lib/python3"):
        if marker in file:
            file = file.split(marker, 1)[1]
            break
    return f"{match['func']} ({file})"


#: (category, frame prefix or substring): a sample goes to the first category matched by its
#: frames, from the leaf (innermost) outwards.
CATEGORIES = [
    (
        "PostgreSQL connect",
        ("connect (django/db/backends/", "psycopg/connection.py", "_connect_gen"),
    ),
    ("PostgreSQL round trips (psycopg)", ("(psycopg/", "(psycopg_binary/", "(psycopg_pool/")),
    ("Redis / channel layer push", ("(channels_redis/", "(redis/", "(games/events.py")),
    ("rules engine", ("(games/engine/",)),
    ("JSON encode/decode", ("(json/", "(python3.11/json/")),
    ("Django ORM (query building, model instances)", ("(django/db/",)),
    ("DRF (views, serializers, auth, renderers)", ("(rest_framework/",)),
    ("Django (handlers, middleware, URLs, signals)", ("(django/",)),
    (
        "project code (games/, accounts/, taxi_project/)",
        ("(games/", "(accounts/", "(taxi_project/"),
    ),
    ("asgiref (sync/async thread hand-offs)", ("(asgiref/",)),
    ("uvicorn / HTTP parsing", ("(uvicorn/", "httptools")),
    ("asyncio / uvloop / threads", ("(asyncio/", "uvloop", "(threading.py", "(concurrent/")),
]


def _category(frames: list[str]) -> str:
    for frame in reversed(frames):
        for name, needles in CATEGORIES:
            if any(needle in frame for needle in needles):
                return name
    return "other"


def summarize(path: Path, top: int = 30) -> dict:
    """Inclusive and self shares of the samples, by function (lines merged)."""
    inclusive: Counter = Counter()
    leaf: Counter = Counter()
    categories: Counter = Counter()
    total = 0
    for line in Path(path).read_text(errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [_short(f) for f in stack.split(";") if f]
        frames = [f for f in frames if not f.startswith(("process ", "thread "))]
        if not frames:
            continue
        total += n
        for frame in set(frames):
            inclusive[frame] += n
        leaf[frames[-1]] += n
        categories[_category(frames)] += n
    ours = [
        (f, n)
        for f, n in inclusive.most_common()
        if f.endswith(".py)")
        and f.rsplit("(", 1)[1].startswith(("games/", "accounts/", "taxi_project/"))
    ]
    return {
        "samples": total,
        "inclusive": [(f, n / total) for f, n in inclusive.most_common(top)] if total else [],
        "self": [(f, n / total) for f, n in leaf.most_common(top)] if total else [],
        "project": [(f, n / total) for f, n in ours[:top]] if total else [],
        "categories": [(c, n / total) for c, n in categories.most_common()] if total else [],
    }


def report(summary: dict) -> str:
    lines = [f"py-spy: {summary['samples']} samples of worker threads holding the GIL"]
    for title in ("categories", "project", "inclusive", "self"):
        lines.append(f"  top by {title} share:")
        for frame, share in summary[title]:
            lines.append(f"    {100 * share:5.1f}%  {frame}")
    return "\n".join(lines)
