"""Clocks: a turn's time limit (K1, played by the autopilot: K2, K3) and the table's wall-clock
deadlines (D4), appended by the server as `timeout` and `deadline` entries."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games import events, repository
from games.errors import GameNotFound
from games.models import Game, GameEntry
from games.services import bot_workers, entries

log = logging.getLogger(__name__)

DEADLINE_RETRY = timedelta(minutes=1)  # after a failed deadline, before the next attempt


def due(game: Game) -> bool:
    """Whether something is due now in a running game: its turn's time is up, or one of the
    table's wall-clock deadlines has passed."""
    return (
        game.status == Game.Status.PLAYING
        and game.next_deadline_at is not None
        and game.next_deadline_at <= timezone.now()
    )


def deadline_fire(*, game_id: int, version: int | None = None) -> list[GameEntry]:
    """Append what the clock says is due: a table's wall-clock deadline (D4), then a timeout of
    the player to move, played by the autopilot (K2; the third in a row makes a zombie, K3).
    Idempotent: nothing happens if the game moved on from `version` or nothing is due."""
    with transaction.atomic():
        try:
            loaded = repository.load(game_id, lock=True)
        except repository.GameNotFound:
            raise GameNotFound() from None
        if version is not None and loaded.game.version != version:
            return []
        return fire_due(loaded)


#: Due games one statement claims, fired in one transaction: a batch spares each game a
#: claim, a BEGIN and a COMMIT (PostgreSQL's work per timeout), and holds the rows it locked
#: for a few milliseconds per game.
CLAIM_BATCH = 16


def deadlines_sweep(*, limit: int = 1000, per_claim: int = CLAIM_BATCH) -> int:
    """Fire every due deadline, the earliest first, up to `limit` games: `per_claim` games at
    a time are claimed with SKIP LOCKED and fired in one transaction, so several workers share
    the work and a game being moved is left for the next tick (the claims go on from the last
    one's deadline: `repository.claim_due`); a worker that dies mid-batch rolls back and its
    games stay due. If a game of a batch fails (a bug, an unreadable log), the batch is rolled
    back and its games fired one per transaction, so the one that fails is logged and looked
    at again later, and never holds up the others. A claim that finds fewer games than it
    asked for is the last: nothing else is due but games other transactions hold, which the
    next tick takes. Returns games handled."""
    handled = 0
    after = None  # the deadline of the game claimed last: the next is due no earlier
    while handled < limit:
        batch: list[repository.Claimed] = []
        try:
            # the batch's pushes go together once it has committed (games/events.py)
            with events.pushes_batched(), transaction.atomic():
                batch = repository.claim_due(
                    timezone.now(), after, count=min(per_claim, limit - handled)
                )
                for claimed in batch:
                    fire_due(repository.load(claimed.game_id))
        except Exception:
            if not batch:  # the claim itself failed: the database, not a game
                raise
            for claimed in batch:  # rolled back: each on its own
                _fire_alone(claimed)
        if not batch:
            break
        after = batch[-1].deadline
        handled += len(batch)
        if len(batch) < per_claim:  # no more due but those held elsewhere: the next tick's
            break
    return handled


def _fire_alone(claimed: repository.Claimed) -> None:
    """Fire one game a failed batch held, in its own transaction unless someone moved it since
    the claim (`deadline_fire`); if it fails, log it and look again after DEADLINE_RETRY."""
    try:
        deadline_fire(game_id=claimed.game_id, version=claimed.version)
    except Exception:
        log.exception(
            "deadline of game %s failed; next look in %s", claimed.game_id, DEADLINE_RETRY
        )
        # only if no one moved it since the claim (its lock went with the rollback)
        Game.objects.filter(pk=claimed.game_id, version=claimed.version).update(
            next_deadline_at=timezone.now() + DEADLINE_RETRY
        )


def fire_due(loaded: repository.Loaded) -> list[GameEntry]:
    """What is due in a game its caller has locked: a wall-clock deadline, then a timeout."""
    game = loaded.game
    if game.status != Game.Status.PLAYING:
        return []
    now = timezone.now()
    appended: list[GameEntry] = []
    reached = [
        number
        for number, when in ((1, game.deadline1_at), (2, game.deadline2_at))
        if when is not None and when <= now and game.deadlines_reached < number
    ]
    engine = game.game_kind.engine
    if reached and loaded.state.deadline < max(reached):  # only a game with D4 has them
        action = engine.Deadline(max(reached))  # the 2nd reaches the 1st too (D4)
        appended.append(_server_append(loaded, action))
    turn_deadline = game.turn_deadline_at
    bot_waited = False
    if game.status == Game.Status.PLAYING and turn_deadline is not None and turn_deadline <= now:
        if _bot_plays_on(loaded, turn_deadline, now):
            bot_waited = True
        else:
            appended.append(_server_append(loaded, engine.Timeout(loaded.state.current_player())))
    if bot_waited:  # the bot's task was lost or is late: queue it again, look again soon
        game.next_deadline_at = min(
            now + timedelta(seconds=settings.BOT_LOST_AFTER_SECONDS),
            turn_deadline + timedelta(seconds=settings.BOT_TIMEOUT_GRACE_SECONDS),
        )
        game.save(update_fields=["next_deadline_at"])
        version, seat = game.version, game.active_seat
        transaction.on_commit(
            lambda: events.bot_turn_started(game_id=game.pk, version=version, seat=seat)
        )
    elif not appended:  # a stale schedule: look again when something is really due
        game.deadlines_reached = max(game.deadlines_reached, max(reached, default=0))
        game.next_deadline_at = game.compute_next_deadline()
        game.save(update_fields=["deadlines_reached", "next_deadline_at"])
    return appended


def _bot_plays_on(loaded: repository.Loaded, turn_deadline, now) -> bool:
    """A bot whose turn's time ran out is left to play it, not the autopilot (K2), while a
    worker that plays bots lives, for at most BOT_TIMEOUT_GRACE_SECONDS past the limit (a bot
    that never moves must not hold a game forever)."""
    seat = loaded.state.current_player()
    mover = next((s for s in loaded.seats if s.seat == seat), None)
    grace = timedelta(seconds=settings.BOT_TIMEOUT_GRACE_SECONDS)
    return (
        mover is not None
        and bool(mover.bot)
        and now < turn_deadline + grace
        and bot_workers.alive()
    )


def _server_append(loaded: repository.Loaded, action) -> GameEntry:
    return entries.entry_append(
        loaded, repository.NewEntry(action), expected_version=loaded.game.version
    )
