"""Computer opponents at tables: their accounts, and their turns played through the
same write path as a person's (`moves.move_submit`: the same checks, log, push and clocks).

    seats = bots.bot_accounts(3)            # three distinct bot accounts for one table
    bots.bot_action_play(game_id=g, version=v, seat=s)  # what the `bots` queue's task runs:
                                            # one action, made no earlier than its due time,
                                            # the next one queued at once
    bots.bot_turn_play(game_id=g, version=v, seat=s)    # a whole turn in this process, now

On time: a bot's turn is due `BOT_THINK_SECONDS` after it began (the game row's
`turn_started_at`, the time of the entry that began it). Its task is queued at once by that
entry's commit, so the decision (load, view, choose) is made during the think time, not after
it; the task then waits until the due time and submits the decided move with the game it
loaded (no second load). The append's version check still decides: an entry of anyone else
meanwhile makes the submit stale, and that entry queued the bot again to plan on it.

A bot seat is a `Seat` whose `bot_level` is set; its user is one of the bot accounts
`bot:1` … `bot:7` (a username no one can register: `:` is refused at sign-up), inactive and
without a usable password, so nobody signs in as a bot. The entries a bot appends have that
account as their actor.

H1: the task is handed (game, version, seat) only, and the decision function gets the seat's
player view (`engine.player_view`), never the state: the pile order and the seed stay out of
its reach (tests/bots/test_bot_seats.py proves what `choose` receives).
"""

from __future__ import annotations

import datetime
import hashlib
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from games import events, registry, repository
from games.errors import StaleVersion
from games.models import Game, GameEntry
from games.services import moves
from taxi_project.api_errors import ApiError

log = logging.getLogger(__name__)

#: Seats a table may give bots: all but its creator's (at the largest table of any game).
MAX_BOTS = max(kind.max_players for kind in registry.all()) - 1
#: Every game's bot levels (a table checks its own game's: games/services/tables.py).
LEVELS = tuple(dict.fromkeys(level for kind in registry.all() for level in kind.bot_levels))
#: Atomic actions `bot_turn_play` plays in a row (a turn needs a handful; this only bounds a bug).
MAX_ACTIONS_PER_TURN = 50
#: Seconds a lost turn, once queued again, is not queued again for the same version.
WOKEN_TTL = 60


def bot_accounts(count: int) -> list:
    """`count` distinct bot accounts (created on first use)."""
    users = []
    User = get_user_model()  # noqa: N806 - a model class
    for number in range(1, count + 1):
        user, created = User.objects.get_or_create(
            username=f"bot:{number}", defaults={"is_active": False}
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        users.append(user)
    return users


def bot_seed(game_id: int, version: int, seat: int, prefix: str = "bahama-taxi-bot") -> int:
    """The bot's own seed for this decision: from public facts only, so a decision replays
    (and a retried task makes the same move, which its idempotency key then recognises);
    `prefix`: the game's (`GameKind.bot_seed_prefix`)."""
    digest = hashlib.sha256(f"{prefix}:{game_id}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass
class BotAction:
    """What one run of `bot_action_play` did: `seq`, the entry it appended (None: nothing, or an
    earlier run's entry under the same key), and each step's wall and CPU milliseconds (the
    worker logs them: bench/bot_think.py reads that line)."""

    seq: int | None = None
    level: str = ""
    steps: dict[str, tuple[float, float]] = field(default_factory=dict)
    due: float | None = None  # wall-clock time the bot's move was due (its turn's start + think)
    decided_at: float | None = None  # wall-clock time the decision was made
    submit_at: float | None = None  # wall-clock time the submit began (for the entry's time)

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            yield
        finally:
            self.steps[name] = (
                round(1000 * (time.perf_counter() - wall), 2),
                round(1000 * (time.process_time() - cpu), 2),
            )


def bot_action_play(*, game_id: int, version: int, seat: int, on_time: bool = True) -> BotAction:
    """Play the bot seat `seat` of a game that is at `version` one atomic action (a whole turn
    when the bot is certain of every part of it) and, if that seat is still to move after it,
    queue its next action at once (`games.events.bot_turn_started`, after commit). One action
    per task: a pool process is never held for a whole turn of searches.

    On time (`on_time`, what the worker does): the decision is made at once, then the move
    waits in this process until it is due (`bot_due`: the turn's start + BOT_THINK_SECONDS)
    and is submitted with the game loaded for the decision; a move never comes before it is
    due. A turn's later actions, and a task that starts late, are past due: no wait.
    `on_time=False` (`bot_turn_play`: tests, tools) moves at once.

    Idempotent on the version: nothing happens if the game is over, waits on another seat,
    or moved on through anyone else's entry (a deadline, a timeout, a moderator: that entry
    queued the bot again, for the version it made), before the decision or during the wait.
    A game moved on only by this seat's own entries is a redelivered task whose first
    delivery died mid-turn (or a second task for the same step): it plays on from there. A
    move someone else's append overtook (409) stops, as the entry that overtook it schedules
    whatever comes next. Each move's idempotency key is its version, so tasks run twice at
    once append each move once, and only the one whose entry it is queues the next action."""
    done = BotAction()
    try:
        with done.step("load"):
            loaded = repository.load(game_id)
    except repository.GameNotFound:
        return done
    game = loaded.game
    mine = next((s for s in loaded.seats if s.seat == seat and s.bot), None)
    if mine is None or game.status != Game.Status.PLAYING or game.active_seat != seat:
        return done
    if game.version != version:
        if game.version < version or _moved_by_others(game_id, since=version, seat=seat):
            return done
        version = game.version
    done.level = mine.bot
    kind = game.game_kind
    with done.step("view"):
        view = kind.engine.player_view(loaded.state, seat)
    with done.step("choose"):
        action = kind.choose(view, bot_seed(game_id, version, seat, kind.bot_seed_prefix), mine.bot)
    done.decided_at = time.time()
    if on_time:
        done.due = bot_due(game)
        with done.step("wait"):
            wait_until(done.due)
    done.submit_at = time.time()
    try:
        with done.step("submit"):
            result = moves.move_submit(
                game_id=game_id,
                user=get_user_model()(pk=mine.user_id),
                action=kind.engine.encode_action(action),
                version=version,
                idempotency_key=f"bot-{version}-{seat}",
                loaded=loaded,
            )
    except StaleVersion:  # a clock or a moderator came first: their entry decides
        return done
    except (ApiError, *registry.engine_errors()):  # a bot's refused move is a bug: stop
        log.exception("bot at seat %s of game %s refused at version %s", seat, game_id, version)
        return done
    if result.replayed:  # another run of this step appended it and queues what follows
        return done
    body = result.body
    done.seq = body["seq"]
    if _plays_on(body, seat):
        after = body["version"]
        transaction.on_commit(
            lambda: events.bot_turn_started(game_id=game_id, version=after, seat=seat)
        )
    return done


def bot_due(game: Game) -> float:
    """When the bot on turn in `game` may move (wall-clock seconds): BOT_THINK_SECONDS after
    its turn began. The entry that began the turn and the row's `turn_started_at` share one
    instant (games/repository.py), so an entry a deadline or a moderator appends within the
    turn leaves it as it was."""
    began = game.turn_started_at
    return (began.timestamp() if began is not None else time.time()) + settings.BOT_THINK_SECONDS


def wait_until(due: float) -> None:
    """Sleep until the wall clock reaches `due` (at once if it has)."""
    while (left := due - time.time()) > 0:
        time.sleep(left)


def bot_turn_play(*, game_id: int, version: int, seat: int) -> int:
    """The bot's turn played to its end in this process now, action after action, without
    waiting for its due time (what the chain of `bot_action_play` tasks does across the
    worker's processes, on time); the number of actions appended. For callers without a
    worker: tests, tools."""
    played = 0
    while played < MAX_ACTIONS_PER_TURN:
        done = bot_action_play(game_id=game_id, version=version, seat=seat, on_time=False)
        if done.seq is None:
            return played
        played += 1
        version = done.seq
    return played


def _plays_on(answer: dict, seat: int) -> bool:
    """Whether the seat is still to move after its own entry, in the same turn (an entry that
    began a new turn for it queued that turn with its think time: games/services/entries.py)."""
    view = answer["view"]
    if view["status"] != Game.Status.PLAYING or view["active_seat"] != seat:
        return False
    starts = {"type": "turn_started", "seat": seat}
    return not any(note.items() >= starts.items() for note in answer["notifications"])


def _moved_by_others(game_id: int, *, since: int, seat: int) -> bool:
    """Whether an entry after seq `since` is not this seat's own action."""
    # the server's entries have no seat, and `exclude` keeps those
    return GameEntry.objects.filter(game_id=game_id, seq__gt=since).exclude(seat=seat).exists()


def bot_turns_waiting(*, older_than: datetime.timedelta) -> list[tuple[int, int, int]]:
    """(game, version, seat) of every running game waiting on a bot seat whose last entry is
    older than `older_than`: turns whose task was lost (a worker or broker crash)."""
    cutoff = timezone.now() - older_than
    last_entry = GameEntry.objects.filter(game=OuterRef("pk"), seq=OuterRef("version"))
    return list(
        Game.objects.filter(
            status=Game.Status.PLAYING,
            turn_started_at__lt=cutoff,
            seats__seat=F("active_seat"),
            seats__bot_level__gt="",
        )
        .annotate(last_at=Subquery(last_entry.values("created_at")[:1]))
        .filter(last_at__lt=cutoff)
        .values_list("pk", "version", "active_seat")
    )


def bot_turns_wake(*, older_than: datetime.timedelta) -> list[tuple[int, int, int]]:
    """The lost turns of `bot_turns_waiting`, each returned once per version (a shared cache
    key, SET NX): a backlog on the bots queue is not doubled by the beat."""
    woken = []
    for game_id, version, seat in bot_turns_waiting(older_than=older_than):
        try:
            first = cache.add(f"bot-woken:{game_id}:{version}", 1, timeout=WOKEN_TTL)
        except Exception:  # the cache is away: wake it (the task is idempotent)
            first = True
        if first:
            woken.append((game_id, version, seat))
    return woken


__all__ = [
    "LEVELS", "MAX_BOTS", "BotAction", "bot_accounts", "bot_action_play", "bot_due", "bot_seed",
    "bot_turn_play", "bot_turns_waiting", "bot_turns_wake", "wait_until",
]  # fmt: skip
