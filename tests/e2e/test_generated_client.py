"""A client generated from the served OpenAPI schema by a maintained generator
(openapi-python-client, a dev dependency) plays a whole game against a live server.

The client knows nothing but what the schema gives it: it signs two players up, opens and
joins a table, reads the board's roads (`/api/v1/board`), and plays every turn from the typed
`legal_actions` of the typed game view (towards the nearest citizen or destination), until the
game is over. Every answer is parsed into the generated models, so a response that does not
match the schema fails the test."""

from __future__ import annotations

import collections
import importlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.e2e.server import current_database_url, live_server

pytestmark = pytest.mark.slow

PACKAGE = "taxi_generated_client"
MAX_REQUESTS = 6000


@pytest.fixture(scope="module")
def live(django_db_setup):
    with live_server(database_url=current_database_url(), workers=1) as server:
        yield server


@pytest.fixture(scope="module")
def generated(live, tmp_path_factory):
    """The client package, generated from the schema the live server serves."""
    import urllib.request

    where = tmp_path_factory.mktemp("generated")
    with urllib.request.urlopen(live.url("/api/schema/?format=json"), timeout=30) as response:
        (where / "schema.json").write_bytes(response.read())
    venv_bin = str(Path(sys.executable).parent)
    done = subprocess.run(
        [
            os.path.join(venv_bin, "openapi-python-client"),
            "generate",
            "--path",
            str(where / "schema.json"),
            "--meta",
            "none",
            "--output-path",
            str(where / PACKAGE),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": venv_bin + os.pathsep + os.environ.get("PATH", "")},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    sys.path.insert(0, str(where))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(where))
        for name in [n for n in sys.modules if n.split(".")[0] == PACKAGE]:
            del sys.modules[name]


class Generated:
    """The generated package's operations, by operation id (whatever tag holds them)."""

    def __init__(self, package):
        self.package = package
        self.root = Path(package.__file__).parent

    def op(self, operation_id: str):
        found = list(self.root.glob(f"api/*/{operation_id}.py"))
        assert len(found) == 1, operation_id
        tag = found[0].parent.name
        return importlib.import_module(f"{self.package.__name__}.api.{tag}.{operation_id}")

    def model(self, name: str):
        return getattr(importlib.import_module(f"{self.package.__name__}.models"), name)


def _distances(edges: list[list[str]]) -> dict[str, dict[str, int]]:
    neighbours = collections.defaultdict(list)
    for a, b in edges:
        neighbours[a].append(b)
        neighbours[b].append(a)
    distances = {}
    for start in neighbours:
        seen, queue = {start: 0}, collections.deque([start])
        while queue:
            here = queue.popleft()
            for there in neighbours[here]:
                if there not in seen:
                    seen[there] = seen[here] + 1
                    queue.append(there)
        distances[start] = seen
    return distances


def _choose(view, distance) -> dict:
    """A sensible action from the typed legal actions: pick up, pass, drive towards the
    nearest target (a passenger's destination, or a waiting citizen when there is room),
    stop on it or when no step is left."""
    offered = [action.to_dict() for action in view.legal_actions]
    by_type = collections.defaultdict(list)
    for action in offered:
        by_type[action["type"]].append(action)
    for kind in ("pickup", "pass", "decline"):
        if by_type[kind]:
            return by_type[kind][0]
    me = view.seats[view.you]
    here = me.area.value
    targets = {p.destination.value for p in me.passengers}
    room = len(me.passengers) < (2 if view.pile_exhausted else 3)  # P1, P2
    if room and (len(view.waiting) > 4 or not me.passengers):  # P3
        targets |= {c.origin.value for c in view.waiting}
    if by_type["stop"] and (here in targets or not by_type["step"]):
        return by_type["stop"][0]
    steps = by_type["step"]
    if not steps:
        return by_type["stop"][0]

    def nearness(step):
        return min((distance[step["to"]][t] for t in targets), default=0)

    return min(steps, key=nearness)


def test_a_generated_client_plays_a_whole_game(generated, live, committed_db):
    api = Generated(generated)
    base = live.url("").rstrip("/")
    anonymous = generated.Client(base_url=base, raise_on_unexpected_status=True)
    players = []
    for _ in range(2):
        name = f"gen{uuid.uuid4().hex[:10]}"
        body = api.model("SignupRequest")(username=name, password=f"pw-{name}-long-enough")
        signed = api.op("auth_signup").sync(client=anonymous, body=body)
        assert isinstance(signed, api.model("AuthResult")), signed
        players.append(
            generated.AuthenticatedClient(base_url=base, token=signed.token, prefix="Token")
        )

    board = api.op("board").sync(client=anonymous)
    assert isinstance(board, api.model("Board")) and "CC BY 4.0" in board.license_
    distance = _distances([[a.value for a in edge] for edge in board.edges])

    table_request = api.model("TableCreateRequest")(players=2)
    table_request.movement = api.model("MovementEnum").FASTER
    table = api.op("tables_create").sync(client=players[0], body=table_request)
    assert isinstance(table, api.model("GameSummary")), table
    joined = api.op("tables_join").sync(
        client=players[1], game_id=table.id, body=api.model("TableJoinRequest")()
    )
    assert joined.status.value == "playing"

    by_seat = {}
    for client in players:
        detail = api.op("games_retrieve").sync(client=client, game_id=table.id)
        by_seat[detail.your_seat] = client
    requests, moves = 2, collections.Counter()
    view, version = detail.view, detail.version
    while view.status.value == "playing":
        assert requests < MAX_REQUESTS, "the game did not end"
        mover = by_seat[view.active_seat]
        if view.you != view.active_seat:  # the turn passed: the next player reads the game
            mine = api.op("games_retrieve").sync(client=mover, game_id=table.id)
            view, version = mine.view, mine.version
            requests += 1
        action = _choose(view, distance)
        action.pop("seat", None)  # the server fills in the caller's seat
        move = api.model("MoveRequest").from_dict(
            {"action": action, "version": version, "idempotency_key": uuid.uuid4().hex}
        )
        answer = api.op("games_actions_submit").sync(client=mover, game_id=table.id, body=move)
        requests += 1
        assert isinstance(answer, api.model("MoveResponse")), answer
        moves[action["type"]] += 1
        view, version = answer.view, answer.version

    detail = api.op("games_retrieve").sync(client=players[0], game_id=table.id)
    assert detail.status.value == "finished", detail.status
    assert detail.result is not None and len(detail.result.incomes) == 2
    assert detail.seed  # H2: revealed at the end
    log = api.op("games_log").sync(client=players[1], game_id=table.id, limit=500)
    kinds = {type(note).__name__ for entry in log.entries for note in entry.notifications}
    assert {"GameStartedNotification", "TaxiMovedNotification"} <= kinds
    assert moves["step"] and moves["stop"] and moves["pickup"]
    print(json.dumps({"requests": requests, "moves": dict(moves)}))
