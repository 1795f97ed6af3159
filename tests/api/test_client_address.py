"""The login limit counts the client's real address under the shipped server command:
`X-Forwarded-For` names the client only when the reverse proxy sends it.

uvicorn is started with the proxy options of the command in docker/Dockerfile and in
docker/compose.yaml, and the environment compose gives it, read from those files: a change
there is what these tests check. The rest (host, port, workers) is the live-server helper's.
Clients connect from 127.0.0.2, which is not the proxy; the proxy is 127.0.0.1, the address
the image trusts by default (inside a container, only a proxy in the container itself).
"""

from __future__ import annotations

import http.client
import json
import re
from pathlib import Path

import pytest
import yaml

from tests.e2e.server import HOST, current_database_url, live_server

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 3  # wrong logins per address before 429
NOT_THE_PROXY = "127.0.0.2"
THE_PROXY = "127.0.0.1"


def _proxy_options(command: list[str]) -> list[str]:
    """The uvicorn options that decide how the client address is read."""
    options, take_next = [], False
    for arg in command:
        if take_next:
            options.append(arg)
            take_next = False
        elif arg.startswith(("--proxy-headers", "--no-proxy-headers", "--forwarded-allow-ips")):
            options.append(arg)
            take_next = arg == "--forwarded-allow-ips"
    return options


def dockerfile_command() -> list[str]:
    text = (ROOT / "docker" / "Dockerfile").read_text()
    cmd = re.search(r"^CMD (\[.*?\])\s*$", text.replace("\\\n", " "), re.M | re.S)
    return json.loads(cmd.group(1))


def dockerfile_env() -> dict[str, str]:
    text = (ROOT / "docker" / "Dockerfile").read_text().replace("\\\n", " ")
    env = {}
    for line in re.findall(r"^ENV (.*)$", text, re.M):
        env.update(re.findall(r"(\w+)=(\S+)", line))
    return env


def compose_web() -> tuple[list[str], dict[str, str]]:
    """The web service's command, and its environment with each `${VAR:-default}` at its
    default (what an operator gets who sets nothing)."""
    compose = yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())
    web = compose["services"]["web"]
    env = {}
    for key, value in web["environment"].items():
        match = re.fullmatch(r"\$\{(\w+):-(.*)\}", str(value))
        env[key] = match.group(2) if match else str(value)
    return [str(arg) for arg in web["command"]], env


def shipped(which: str) -> tuple[list[str], dict[str, str]]:
    if which == "Dockerfile":
        env = dockerfile_env()
        return _proxy_options(dockerfile_command()), {
            k: env[k] for k in ("FORWARDED_ALLOW_IPS", "NUM_PROXIES") if k in env
        }
    command, env = compose_web()
    return _proxy_options(command), {
        k: env[k] for k in ("FORWARDED_ALLOW_IPS", "NUM_PROXIES") if k in env
    }


def wrong_login(port: int, *, source: str, forwarded_for: str | None) -> int:
    connection = http.client.HTTPConnection(HOST, port, timeout=15, source_address=(source, 0))
    headers = {"Content-Type": "application/json"}
    if forwarded_for is not None:
        headers["X-Forwarded-For"] = forwarded_for
    body = json.dumps({"username": "nobody", "password": "not the password"})
    try:
        connection.request("POST", "/api/v1/auth/login", body=body, headers=headers)
        response = connection.getresponse()
        payload = json.loads(response.read())
    finally:
        connection.close()
    if response.status == 429:
        assert payload["code"] == "throttled", payload
    else:
        assert (response.status, payload["code"]) == (400, "invalid_credentials"), payload
    return response.status


@pytest.fixture(scope="module", params=["Dockerfile", "compose"])
def server(request, django_db_setup):
    options, env = shipped(request.param)
    env = {**env, "AUTH_THROTTLE_RATE": f"{LIMIT}/min"}
    with live_server(
        database_url=current_database_url(), workers=1, env=env, extra_args=options
    ) as live:
        yield live


def test_a_forged_x_forwarded_for_does_not_escape_the_login_limit(server, committed_db):
    # A client that reaches the server directly names a new address on every try.
    statuses = [
        wrong_login(server.port, source=NOT_THE_PROXY, forwarded_for=f"198.51.100.{i}")
        for i in range(1, LIMIT + 3)
    ]

    assert statuses == [400] * LIMIT + [429, 429]


def test_clients_behind_the_proxy_are_counted_apart(server, committed_db):
    # The proxy forwards for many clients: each has a limit of its own...
    for i in range(1, LIMIT + 3):
        assert wrong_login(server.port, source=THE_PROXY, forwarded_for=f"203.0.113.{i}") == 400
    # ...and one of them is held to it, whatever it writes before the proxy's entry.
    statuses = [
        wrong_login(server.port, source=THE_PROXY, forwarded_for=f"10.9.9.{i}, 192.0.2.7")
        for i in range(LIMIT + 1)
    ]
    assert statuses == [400] * LIMIT + [429]
