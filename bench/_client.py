"""Load-generating side of bench/api.py: simulated players over HTTP (aiohttp), their policy,
and the bookkeeping of latencies. Talks only to the base URL it is given (127.0.0.1).

The policy sees what a real client sees: the public view in the last move response. When the
turn stays with the mover, the server's `view.legal_actions` are used; when it passes to the
other player (whose own client would learn its legal actions from the WebSocket push), they are
derived from the public view with the rules of `games.engine.game.Game.legal_actions`, and
every time both are available they are compared (`legal_mismatches`, expected 0).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import random
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import aiohttp

from games.engine.board import AREA_INDEX, DISTANCE, NEIGHBOURS

# games.engine.game: CAPACITY, FEW_WAITING (P1–P3)
CAPACITY = 3
FEW_WAITING = 4
UNDO_LIMIT = 5

# ---------------------------------------------------------------------------------- policy


def legal_from_view(view: dict, seat: int) -> list[dict]:
    """The legal actions of `seat`, from the public view (as Game.legal_actions lists them).

    Assumes no undo was played this turn (this client never undoes), so "the taxi has moved
    this turn" is "the path is not empty"."""
    if view["status"] != "playing" or view["active_seat"] != seat:
        return []
    phase = view["phase"]
    me = view["seats"][seat]
    here = me["area"]
    path = view["path"]
    pile = view["pile"]
    waiting = view["waiting"]
    carrying = len(me["passengers"])
    may_pick_up = not (
        carrying >= CAPACITY
        or (carrying >= 2 and pile < 2)
        or (carrying >= 1 and len(waiting) <= FEW_WAITING)
    )
    if phase == "move":
        pickups_now = not path and view["options"]["pickup_before_movement"] and pile >= 2
    else:
        pickups_now = phase == "pickup"
    actions: list[dict] = []
    if pickups_now and may_pick_up:
        found = {c["destination"] for c in waiting if c["origin"] == here}
        actions.extend(
            {"type": "pickup", "seat": seat, "destination": d}
            for d in sorted(found, key=AREA_INDEX.__getitem__)
        )
    if phase == "pickup":
        actions.append({"type": "decline", "seat": seat})
        return actions
    steps = []
    if phase == "move" and len(path) < view["allowance"]:
        taxis = {s["area"] for s in view["seats"]}
        start = view["turn_start"]
        steps = [a for a in NEIGHBOURS[here] if a != start and a not in taxis]
    actions.extend({"type": "step", "seat": seat, "to": a} for a in steps)
    if path:
        if view["undos_left"] > 0:
            actions.append({"type": "undo", "seat": seat})
        actions.append({"type": "stop", "seat": seat})
    elif not steps:
        actions.append({"type": "pass", "seat": seat})
    return actions


def _nearest(area: str, targets: set[str]) -> int:
    row = DISTANCE[area]
    return min(row[t] for t in targets)


def choose(view: dict, seat: int, legal: list[dict]) -> dict:
    """A simple policy that finishes games: pick up the largest fare when a pickup is legal;
    else step toward the nearest passenger destination, else toward the nearest waiting
    citizen; stop at the target or when no step gets closer; decline otherwise."""
    by_type: dict[str, list[dict]] = {}
    for action in legal:
        by_type.setdefault(action["type"], []).append(action)
    me = view["seats"][seat]
    here = me["area"]
    if "pickup" in by_type:
        fares = DISTANCE[here]
        return max(
            by_type["pickup"],
            key=lambda a: (fares[a["destination"]], -AREA_INDEX[a["destination"]]),
        )
    if "decline" in by_type:
        return by_type["decline"][0]
    if "pass" in by_type:
        return by_type["pass"][0]
    riding = me["passengers"]
    if riding:
        targets = {c["destination"] for c in riding}
    else:
        targets = {c["origin"] for c in view["waiting"]}
    steps = by_type.get("step", [])
    if not view["path"]:  # the first step of a turn is mandatory
        if not targets:
            return steps[0]
        return min(steps, key=lambda a: _nearest(a["to"], targets))
    if not steps or not targets or here in targets:
        return by_type["stop"][0]
    best = min(steps, key=lambda a: _nearest(a["to"], targets))
    if _nearest(best["to"], targets) >= _nearest(here, targets):
        return by_type["stop"][0]
    return best


def _same_actions(a: list[dict], b: list[dict]) -> bool:
    return [sorted(x.items()) for x in a] == [sorted(x.items()) for x in b]


# ---------------------------------------------------------------------------------- records


@dataclass
class Window:
    """The measuring window [start, end] on the perf_counter clock."""

    start: float
    end: float

    def holds(self, t0: float, t1: float) -> bool:
        return t0 >= self.start and t1 <= self.end

    def has(self, t: float) -> bool:
        return self.start <= t <= self.end


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)  # accepted (201 / 200), seconds
    answered_at: list[float] = field(default_factory=list)  # perf_counter of each of those
    codes: Counter = field(default_factory=Counter)  # every status in the window ("exc:…")
    error_bodies: Counter = field(default_factory=Counter)  # (status, code) of non-2xx
    first_errors: list[str] = field(default_factory=list)  # a few bodies, for diagnosis
    outside_window: int = 0
    # accepted answers that came within the window, wherever their request began: the rate of a
    # short window (the latencies count only requests wholly inside, which undercounts a window
    # by about one latency's worth of answers: 10 % of 5 s at 500 ms)
    answered_in_window: int = 0
    # paced players: the moves their schedules made due inside the window (`poisson_schedule`),
    # however many the server let them send: what "carried" is measured against
    due_in_window: int = 0
    games_started: int = 0
    games_finished: int = 0
    legal_checked: int = 0
    legal_mismatches: int = 0
    resyncs: int = 0
    setup_latencies: list[float] = field(default_factory=list)  # create/join/detail in window
    setup_errors: Counter = field(default_factory=Counter)  # (status, code) of failed setups
    # request id (the `x-bench-id` header) -> (sent, answered) of each accepted one in the
    # window: bench/_probe.py records the same ids on the server side
    timed: dict[str, tuple[float, float]] = field(default_factory=dict)

    def accepted(self, t0: float, t1: float, request_id: str | None = None) -> None:
        self.latencies.append(t1 - t0)
        self.answered_at.append(t1)
        if request_id is not None:
            self.timed[request_id] = (t0, t1)

    def error(self, status: int | str, body) -> None:
        code = body.get("code") if isinstance(body, dict) else None
        self.error_bodies[(status, code)] += 1
        if len(self.first_errors) < 5:
            self.first_errors.append(f"{status}: {short_body(body)}")


def short_body(body) -> str:
    """An error body in one short line (Django's HTML error pages by their title)."""
    text = str(body)
    if isinstance(body, str) and "<title>" in body:
        text = body.split("<title>", 1)[1].split("</title>", 1)[0].strip() + " (HTML page)"
    return " ".join(text.split())[:300]


def percentile(values: list[float], q: float) -> float | None:
    """Linear interpolation between closest ranks (numpy's default); q in [0, 100]."""
    if not values:
        return None
    data = sorted(values)
    if len(data) == 1:
        return data[0]
    pos = (len(data) - 1) * q / 100
    low = int(pos)
    high = min(low + 1, len(data) - 1)
    return data[low] + (data[high] - data[low]) * (pos - low)


# ---------------------------------------------------------------------------------- HTTP

_request_ids = itertools.count(1)


def request_id() -> str:
    """A new id for the `x-bench-id` header (unique within this run)."""
    return str(next(_request_ids))


@dataclass
class Player:
    user_id: int
    username: str
    token: str
    # the player's own client (one kept-alive connection, as a person's app or browser tab
    # holds), for its moves; None: the moves share the caller's pool of connections
    session: aiohttp.ClientSession | None = field(default=None, repr=False, compare=False)

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Token {self.token}"}


class HttpError(Exception):
    def __init__(self, method: str, url: str, status: int, body):
        super().__init__(f"{method} {url} -> {status}: {short_body(body)}")
        self.status = status
        self.body = body


async def request(
    session: aiohttp.ClientSession, method: str, url: str, *, headers=None, json=None
) -> tuple[int, object]:
    async with session.request(method, url, headers=headers, json=json) as response:
        status = response.status
        try:
            body = await response.json(content_type=None)
        except ValueError:
            body = await response.text()
    return status, body


async def expect(session, method, url, ok: int, **kwargs) -> dict:
    status, body = await request(session, method, url, **kwargs)
    if status != ok:
        raise HttpError(method, url, status, body)
    return body


async def signup(session, base: str, username: str, password: str) -> Player:
    body = await expect(
        session,
        "POST",
        f"{base}/api/v1/auth/signup",
        201,
        json={"username": username, "password": password},
    )
    return Player(user_id=body["user"]["id"], username=username, token=body["token"])


async def signup_many(
    session, base: str, prefix: str, count: int, concurrency: int, progress=None
) -> list[Player]:
    """`count` accounts through POST /api/v1/auth/signup, `concurrency` at a time."""
    semaphore = asyncio.Semaphore(concurrency)
    done = 0

    async def one(i: int) -> Player:
        nonlocal done
        async with semaphore:
            player = await signup(session, base, f"{prefix}{i:05d}", f"Bench-pw-{uuid.uuid4().hex}")
        done += 1
        if progress is not None:
            progress(done, count)
        return player

    return list(await asyncio.gather(*(one(i) for i in range(count))))


@dataclass
class Table:
    game_id: int
    by_seat: dict[int, Player]
    version: int
    active_seat: int | None


async def start_game(session, base: str, pair: tuple[Player, Player], options: dict) -> Table:
    """POST /api/v1/tables as the first player, POST …/join as the second: the game starts."""
    first, second = pair
    created = await expect(
        session,
        "POST",
        f"{base}/api/v1/tables",
        201,
        headers=first.headers,
        json={"players": 2, **options},
    )
    game_id = created["id"]
    joined = await expect(
        session,
        "POST",
        f"{base}/api/v1/tables/{game_id}/join",
        200,
        headers=second.headers,
        json={},
    )
    if joined["status"] != "playing":
        raise RuntimeError(f"game {game_id} did not start: {joined['status']}")
    by_user = {p.user_id: p for p in pair}
    by_seat = {s["seat"]: by_user[s["user"]["id"]] for s in joined["seats"]}
    return Table(game_id, by_seat, joined["version"], joined["active_seat"])


async def game_view(session, base: str, table: Table, player: Player) -> tuple[int, dict]:
    detail = await expect(
        session, "GET", f"{base}/api/v1/games/{table.game_id}", 200, headers=player.headers
    )
    return detail["version"], detail["view"]


async def open_game(
    session: aiohttp.ClientSession,
    base: str,
    pair: tuple[Player, Player],
    options: dict,
    stats: Stats,
    window: Window | None = None,
) -> tuple[Table, int, dict]:
    """A new game for the pair, and the view of the player to move (retried on failure; the
    failures are counted). Its requests' latency is recorded if they fall in `window`."""
    clock = time.perf_counter
    failures = 0
    while True:
        t0 = clock()
        try:
            table = await start_game(session, base, pair, options)
            version, view = await game_view(session, base, table, table.by_seat[table.active_seat])
        except (HttpError, aiohttp.ClientError, TimeoutError) as error:
            status = getattr(error, "status", f"exc:{type(error).__name__}")
            body = getattr(error, "body", str(error))
            code = body.get("code") if isinstance(body, dict) else None
            stats.setup_errors[(status, code)] += 1
            if len(stats.first_errors) < 5:
                stats.first_errors.append(f"setup {status}: {short_body(body)}")
            failures += 1
            if failures >= 20:
                raise
            await asyncio.sleep(0.2)
            continue
        t1 = clock()
        if window is not None and window.holds(t0, t1):
            stats.setup_latencies.append(t1 - t0)
        stats.games_started += 1
        return table, version, view


def poisson_schedule(
    start: float, interval: float, window: Window, stats: Stats
) -> Iterator[float]:
    """The times a pair's moves fall due, from `start`: a Poisson process of mean spacing
    `interval`. Those up to the window's end are drawn at the first `next`, and the ones inside
    the window are counted in `stats.due_in_window`, whether or not the server lets the pair
    send them in time: the offered load the window's "carried" is measured against, exactly,
    where rate × duration would add the process's own sampling noise (± 1.5 % at 4,000
    moves)."""
    times: list[float] = []
    at = start
    while at <= window.end:
        at += random.expovariate(1 / interval)
        times.append(at)
    stats.due_in_window += sum(window.has(t) for t in times)
    yield from times
    while True:
        at += random.expovariate(1 / interval)
        yield at


async def play_games(
    session: aiohttp.ClientSession,
    base: str,
    pair: tuple[Player, Player],
    options: dict,
    window: Window,
    stats: Stats,
    first: tuple[Table, int, dict] | None = None,
    check_legal: bool = True,
    interval: float | None = None,
) -> tuple[Table, int, dict] | None:
    """Play complete games with two players, one after another, until the window closes:
    `first` (a game already set up), then new ones. Returns the game still in play when the
    window closed (a `first` for the next window), or None.

    One request in flight at a time (the player to move waits for the answer, like a person).
    `interval`: the players think, `interval` seconds between this pair's moves on average:
    the pair's moves are due at the times of a Poisson process of that mean spacing (random
    think times, drawn without regard to the server's answers), each sent when due or, if the
    answer to the previous one came later, as soon as it came. So K pairs together offer a
    Poisson stream of K / `interval` moves/s, the usual model of many independent users, which
    a slow answer does not bend. (A schedule restarted from a late answer instead puts every
    pair held up by the same slow moment in step with the others, and the load turns into
    bursts that repeat each interval.) None: no thinking, the next move as soon as the answer
    is in.
    Only moves wholly inside the window are counted."""
    clock = time.perf_counter
    due = None if interval is None else poisson_schedule(clock(), interval, window, stats)
    next_at = None if due is None else next(due)
    ongoing = None
    while clock() < window.end:
        if first is not None:
            (table, version, view), first = first, None
        else:
            table, version, view = await open_game(session, base, pair, options, stats, window)
        active = table.active_seat
        mover: int | None = active  # the seat whose view `view` is (its legal_actions)
        errors_in_a_row = 0
        while clock() < window.end:
            if view["status"] != "playing":
                stats.games_finished += 1
                break
            seat = view["active_seat"]
            # resign (K3) is offered at every moment; the load generator never resigns
            offered = [a for a in view["legal_actions"] if a["type"] != "resign"]
            if seat == mover and offered:
                legal = offered
                if check_legal:
                    stats.legal_checked += 1
                    if not _same_actions(legal, legal_from_view(view, seat)):
                        stats.legal_mismatches += 1
            else:
                legal = legal_from_view(view, seat)
            action = dict(choose(view, seat, legal))
            action.pop("seat", None)  # the server fills in the caller's seat
            player = table.by_seat[seat]
            body = {"action": action, "version": version, "idempotency_key": uuid.uuid4().hex}
            url = f"{base}/api/v1/games/{table.game_id}/actions"
            if next_at is not None and due is not None:
                await asyncio.sleep(max(next_at - clock(), 0))
                next_at = next(due)
            rid = request_id()
            headers = {**player.headers, "x-bench-id": rid}
            t0 = clock()
            try:
                status, answer = await request(
                    player.session or session, "POST", url, headers=headers, json=body
                )
            except (TimeoutError, aiohttp.ClientError) as error:
                status, answer = f"exc:{type(error).__name__}", str(error)
            t1 = clock()
            inside = window.holds(t0, t1)
            if inside:
                stats.codes[status] += 1
            else:
                stats.outside_window += 1
            if status in (200, 201):
                if inside:
                    stats.accepted(t0, t1, rid)
                stats.answered_in_window += window.has(t1)
                version, view, mover = answer["version"], answer["view"], seat
                errors_in_a_row = 0
                continue
            if inside:
                stats.error(status, answer)
            errors_in_a_row += 1
            if errors_in_a_row >= 5:
                raise RuntimeError(f"game {table.game_id}: 5 failed moves in a row: {answer}")
            # resynchronise from the server's view of the game
            stats.resyncs += 1
            summary = await expect(
                session,
                "GET",
                f"{base}/api/v1/games/{table.game_id}",
                200,
                headers=player.headers,
            )
            active = summary["active_seat"]
            if active is None:
                version, view, mover = summary["version"], summary["view"], None
            else:
                version, view = await game_view(session, base, table, table.by_seat[active])
                mover = active
        ongoing = None
        if view["status"] == "playing":  # the window closed in mid-game: the next may go on
            ongoing = (dataclasses.replace(table, active_seat=mover), version, view)
    return ongoing


async def synced_socket(
    session: aiohttp.ClientSession, base: str, game_id: int, player: Player, what: str
) -> aiohttp.ClientWebSocketResponse:
    """A WebSocket on the game as `player`, synced from the start (every entry sent, then
    "synced"): what follows are the game's new entries. `what` names it in an error."""
    ws = await session.ws_connect(
        f"{base.replace('http://', 'ws://')}/ws/games/{game_id}/",
        headers=player.headers,
        max_msg_size=0,
    )
    hello = await ws.receive_json(timeout=60)
    if hello["type"] != "hello":
        raise RuntimeError(f"{what}: {hello}")
    await ws.send_json({"type": "sync", "after": -1})
    while (await ws.receive_json(timeout=60))["type"] != "synced":
        pass
    return ws


async def get_loop(
    session: aiohttp.ClientSession, url: str, player: Player, window: Window, stats: Stats
) -> None:
    """The trivial authenticated GET, one request in flight, until the window closes."""
    clock = time.perf_counter
    while clock() < window.end:
        rid = request_id()
        headers = {**player.headers, "x-bench-id": rid}
        t0 = clock()
        try:
            status, body = await request(session, "GET", url, headers=headers)
        except (TimeoutError, aiohttp.ClientError) as error:
            status, body = f"exc:{type(error).__name__}", str(error)
        t1 = clock()
        stats.answered_in_window += status == 200 and window.has(t1)
        if not window.holds(t0, t1):
            stats.outside_window += 1
            continue
        stats.codes[status] += 1
        if status == 200:
            stats.accepted(t0, t1, rid)
        else:
            stats.error(status, body)
