"""Computer opponents at tables: their accounts, and their turns played through the
same write path as a person's (`moves.move_submit`: the same checks, log, push and clocks).

    seats = bots.bot_accounts(3)            # three distinct bot accounts for one table
    bots.bot_turn_play(game_id=g, version=v, seat=s)   # what the `bots` queue's task runs

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

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import F, OuterRef, Subquery
from django.utils import timezone

from games import registry, repository
from games.errors import StaleVersion
from games.models import Game, GameEntry
from games.services import moves
from taxi_project.api_errors import ApiError

log = logging.getLogger(__name__)

#: Seats a table may give bots: all but its creator's (at the largest table of any game).
MAX_BOTS = max(kind.max_players for kind in registry.all()) - 1
#: Every game's bot levels (a table checks its own game's: games/services/tables.py).
LEVELS = tuple(dict.fromkeys(level for kind in registry.all() for level in kind.bot_levels))
#: Atomic actions one task may play in a row (a turn needs a handful; this only bounds a bug).
MAX_ACTIONS_PER_TASK = 50
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


def bot_turn_play(*, game_id: int, version: int, seat: int) -> int:
    """Play the bot seat `seat` of a game that is at `version`, action after action while that
    seat is still to move; returns the number of actions appended.

    Idempotent on the version: nothing happens if the game is over, waits on another seat,
    or moved on through anyone else's entry (a deadline, a timeout, a moderator: that entry
    queued the bot again, for the version it made). A game moved on only by this seat's own
    entries is a redelivered task whose first delivery died mid-turn: it plays on from there.
    A move someone else's append overtook (409) stops the task, as the entry that overtook it
    schedules whatever comes next. Each move's idempotency key is its version, so a task run
    twice at once appends each move once."""
    played = 0
    while played < MAX_ACTIONS_PER_TASK:
        try:
            loaded = repository.load(game_id)
        except repository.GameNotFound:
            return played
        game = loaded.game
        mine = next((s for s in loaded.seats if s.seat == seat and s.bot), None)
        if mine is None or game.status != Game.Status.PLAYING or game.active_seat != seat:
            return played
        if game.version != version:
            if game.version < version or _moved_by_others(game_id, since=version, seat=seat):
                return played
            version = game.version
        kind = game.game_kind
        view = kind.engine.player_view(loaded.state, seat)
        seed = bot_seed(game_id, version, seat, kind.bot_seed_prefix)
        action = kind.choose(view, seed, mine.bot)
        try:
            result = moves.move_submit(
                game_id=game_id,
                user=get_user_model()(pk=mine.user_id),
                action=kind.engine.encode_action(action),
                version=version,
                idempotency_key=f"bot-{version}-{seat}",
            )
        except StaleVersion:  # a clock or a moderator came first: their entry decides
            return played
        except (ApiError, *registry.engine_errors()):  # a bot's refused move is a bug: stop
            log.exception("bot at seat %s of game %s refused at version %s", seat, game_id, version)
            return played
        played += 1
        version = result.body["version"]
    return played


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
    "LEVELS", "MAX_BOTS", "bot_accounts", "bot_seed", "bot_turn_play", "bot_turns_waiting",
    "bot_turns_wake",
]  # fmt: skip
