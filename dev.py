#!/usr/bin/env python3
"""The one entry point for developers. Needs only Python 3.11+ (stdlib only).

    python3 dev.py serve [uvicorn args...]   migrate, then serve on http://127.0.0.1:8000
                                             with a Celery worker (+beat) beside it
    python3 dev.py test [--quick] [pytest args...]
                                             run the test suite, on two processes (--quick:
                                             the fast subset, tests/quick.py; a path: just
                                             that, in one process)
    python3 dev.py typecheck [mypy args...]  run mypy on games/, accounts/ and taxi_project/
                                             (pyproject.toml [tool.mypy]), as CI does
    python3 dev.py bench [SCRIPT [args...]]  run bench/SCRIPT.py (no SCRIPT: list them)
    python3 dev.py lock [pip-compile args...]
                                             lock pyproject.toml's dependencies again into
                                             requirements/*.txt (e.g. --upgrade,
                                             --upgrade-package django)

Each first makes sure .venv holds what that command needs, exactly as requirements/ pins it
(with hashes): `serve` the runtime only, `test` and `typecheck` the test tools as well, `bench`
also the load generator and profilers. It installs again only when that lock file or
pyproject.toml changed.
"""

from __future__ import annotations  # keeps the version check below reachable on old Pythons

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import NoReturn

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = "Scripts" if os.name == "nt" else "bin"
VENV_PYTHON = VENV / BIN / ("python.exe" if os.name == "nt" else "python")
INSTALLED = VENV / ".installed.json"  # {lock name: digest of the lock and pyproject.toml}
REQUIREMENTS = ROOT / "requirements"
# the pip that installs the locks (the one a venv comes with can be years older, and slower)
PIP_LOCK = REQUIREMENTS / "pip.txt"
# pip-tools, itself locked with hashes, in a venv of its own: it never touches .venv's packages
LOCK_VENV = ROOT / ".venv-lock"
LOCK_TOOLS = REQUIREMENTS / "lock-tools.txt"

# Each lock file and the pyproject.toml extras it holds. Each one is resolved with the one
# before it as its constraint, so a package has the same version in all three and each lock
# holds the whole of the one before it.
LOCKS: dict[str, tuple[str, ...]] = {
    "runtime": (),
    "test": ("test",),
    "bench": ("test", "bench"),
}


def pip(python: Path) -> list[str]:
    return [str(python), "-m", "pip", "--disable-pip-version-check", "--no-input"]


def digest(lock: str) -> str:
    files = (REQUIREMENTS / f"{lock}.txt", PIP_LOCK, ROOT / "pyproject.toml")
    return hashlib.sha256(b"".join(f.read_bytes() for f in files)).hexdigest()


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def unpinned(lock: str) -> list[str]:
    """What pyproject.toml asks for (for this lock's extras) that the lock file does not pin:
    a dependency added without running `dev.py lock`."""
    import tomllib  # here: the version check in main() must run first on an old Python

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"])
    for extra in LOCKS[lock]:
        wanted += project["optional-dependencies"][extra]
    text = (REQUIREMENTS / f"{lock}.txt").read_text()
    pinned = {normalized(m) for m in re.findall(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==", text, re.M)}
    names = (re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", r).group() for r in wanted)
    return sorted({n for n in names if normalized(n) not in pinned})


def ensure_venv(lock: str) -> None:
    if not VENV_PYTHON.exists():
        print("dev.py: creating .venv", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    installed = json.loads(INSTALLED.read_text()) if INSTALLED.exists() else {}
    wanted = digest(lock)
    if installed.get(lock) == wanted:
        return
    if missing := unpinned(lock):
        sys.exit(
            f"dev.py: pyproject.toml asks for {', '.join(missing)}, which "
            f"requirements/{lock}.txt does not pin: run `python3 dev.py lock`"
        )
    print(f"dev.py: installing requirements/{lock}.txt into .venv", flush=True)
    run_pip = pip(VENV_PYTHON)
    subprocess.run([*run_pip, "install", "-q", "--require-hashes", "-r", str(PIP_LOCK)], check=True)
    requirements = str(REQUIREMENTS / f"{lock}.txt")
    # --no-deps: exactly what the lock names, nothing a package's metadata might add.
    # --no-compile: modules are byte-compiled when first imported, and serve imports a fraction
    # of what it installs (a fresh install takes a third less time)
    install = [*run_pip, "install", "-q", "--require-hashes", "--no-deps", "--no-compile"]
    subprocess.run([*install, "-r", requirements], check=True)
    # the project itself, editable, built by the locked setuptools rather than a fresh download
    # (without its caution that the folders here shadow the installed packages: they are those)
    subprocess.run(
        [*run_pip, "install", "-q", "--no-deps", "--no-build-isolation", "-e", str(ROOT)],
        check=True,
        env=os.environ | {"PYTHONWARNINGS": "ignore:Editable installation"},
    )
    # every installed package's own requirements are met: catches a lock resolved on a Python
    # whose markers differ from this one's
    subprocess.run([*run_pip, "check"], check=True, stdout=subprocess.DEVNULL)
    if lock != "runtime":
        # The test suite starts dozens of Python processes (servers, workers, tools), each
        # importing most of .venv: compile it once now, on every core, rather than in each of
        # them (in all of them when PYTHONDONTWRITEBYTECODE is set, as on some CI images)
        site = subprocess.run(
            [str(VENV_PYTHON), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        compileall = [str(VENV_PYTHON), "-m", "compileall", "-q", "-j", "0", site]
        subprocess.run(compileall, check=False, stdout=subprocess.DEVNULL)  # best effort
    installed[lock] = wanted
    INSTALLED.write_text(json.dumps(installed, indent=1) + "\n")


def serve(args: list[str]) -> int:
    ensure_venv("runtime")
    python = str(VENV_PYTHON)
    subprocess.run([python, "manage.py", "migrate", "--no-input"], cwd=ROOT, check=True)
    (ROOT / "var").mkdir(exist_ok=True)
    server = "-m uvicorn taxi_project.asgi:application --host 127.0.0.1 --port 8000".split()
    commands = [[python, *server, *args]]
    if (ROOT / "taxi_project" / "celery.py").exists():
        # one worker for both queues, the default and the bots' (settings.CELERY_TASK_QUEUES);
        # a bot holds a process until its move is due: enough that a few bot tables never
        # hold up the deadline sweep
        worker = "-m celery -A taxi_project worker -B --concurrency 8 --loglevel info".split()
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


# The whole suite runs on two processes (pytest-xdist), whole files each (pyproject.toml's
# --dist loadfile): tests/conftest.py says how the files are shared out.
PARALLEL = ["--numprocesses", "2"]


def parallel(args: list[str]) -> bool:
    """Only for the whole suite (or a part chosen by -k/-m): with a path, --quick, -s, --pdb,
    or the caller's own -n/--dist/-p no:xdist, pytest runs as asked (one process unless -n)."""
    if "--quick" in args or "no:xdist" in args:
        return False
    for arg in args:
        if arg.startswith(("-n", "--numprocesses", "--dist", "--pdb", "--trace", "-s")):
            return False
        if arg == "--capture=no":
            return False
        if not arg.startswith("-") and (ROOT / arg.split("::")[0]).exists():
            return False  # a path: run just that, here
    return True


def test(args: list[str]) -> NoReturn:
    ensure_venv("test")
    # exec: pytest's exit status becomes ours, and Ctrl-C goes straight to pytest.
    # --quick is pytest's own option (tests/quick.py).
    os.chdir(ROOT)
    if parallel(args):
        args = [*PARALLEL, *args]
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "pytest", *args])


def typecheck(args: list[str]) -> NoReturn:
    ensure_venv("test")
    # With no paths, mypy checks those that [tool.mypy] `files` names. Its Django plugin loads
    # the settings, which main() has put in DEBUG (else they require a SECRET_KEY).
    os.chdir(ROOT)
    os.execv(str(VENV_PYTHON), [str(VENV_PYTHON), "-m", "mypy", *args])


def bench(args: list[str]) -> int:
    ensure_venv("bench")
    scripts = sorted(p.stem for p in (ROOT / "bench").glob("[!_]*.py"))
    if not args:
        print("dev.py bench SCRIPT [args...], SCRIPT one of: " + ", ".join(scripts))
        print("(BENCHMARKS.md says how to run each and what it measures)")
        return 0
    script, *rest = args
    if script not in scripts:
        sys.exit(f"dev.py: no bench/{script}.py; one of: {', '.join(scripts)}")
    return subprocess.run([str(VENV_PYTHON), f"bench/{script}.py", *rest], cwd=ROOT).returncode


def lock(args: list[str]) -> int:
    """pip-compile each lock in turn, each constrained by the one before it."""
    if sys.version_info[:2] != (3, 11):
        # pip-compile keeps only what this Python's markers select
        sys.exit("dev.py lock: run it with Python 3.11, as CI and the image use (python3.11)")
    tools_python = LOCK_VENV / BIN / VENV_PYTHON.name
    if not tools_python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(LOCK_VENV)], check=True)
    subprocess.run(
        [*pip(tools_python), "install", "-q", "--require-hashes", "-r", str(LOCK_TOOLS)],
        check=True,
    )
    # The index that PIP_INDEX_URL names (PyPI by default), never pip.conf's extra indexes or
    # local wheel folders: the hashes are the index's, the same on every machine.
    env = {
        k: v for k, v in os.environ.items() if k not in ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL")
    }
    env |= {"PIP_CONFIG_FILE": os.devnull, "CUSTOM_COMPILE_COMMAND": "python3 dev.py lock"}
    compile_ = [str(tools_python), "-m", "piptools", "compile", "--quiet", "--generate-hashes"]
    compile_ += ["--allow-unsafe", "--strip-extras", "--no-emit-index-url", "--no-emit-find-links"]
    print("dev.py: locking requirements/pip.txt", flush=True)
    subprocess.run(
        [*compile_, *args, "--output-file", "requirements/pip.txt", "requirements/pip.in"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    before = None
    for name, extras in LOCKS.items():
        print(f"dev.py: locking requirements/{name}.txt", flush=True)
        # setuptools (the build backend) is locked too: the project installs without a download
        command = [*compile_, "--build-deps-for", "editable"]
        command += [f"--extra={extra}" for extra in extras]
        if before:
            command += ["--constraint", f"requirements/{before}.txt"]
        command += [*args, "--output-file", f"requirements/{name}.txt", "pyproject.toml"]
        subprocess.run(command, cwd=ROOT, env=env, check=True)
        before = name
    return 0


COMMANDS = {"serve": serve, "test": test, "typecheck": typecheck, "bench": bench, "lock": lock}


def main() -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs on whatever python3 is
        sys.exit("dev.py: Python 3.11 or newer is required")
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    # Local work runs in DEBUG (the settings default to production: DEBUG off, SECRET_KEY
    # required); `DEBUG=0 python3 dev.py serve` tries the production settings.
    os.environ.setdefault("DEBUG", "1")
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
