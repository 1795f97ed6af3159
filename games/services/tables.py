"""Tables: open, join, leave, cancel; the game starts when the last place is taken.

Each runs in one transaction that locks the game row it changes. The lobby is told once the
transaction commits.
"""

from __future__ import annotations

import secrets
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, registry, selectors
from games.errors import (
    AlreadySeated,
    GameNotFound,
    InvalidBotLevel,
    InvalidDeadlines,
    NotCreator,
    NotSeated,
    TableNotOpen,
    TooManyTables,
)
from games.models import CLOCK_SECONDS, Clock, Game, Seat
from games.services import entries
from games.services.bots import bot_accounts


def _table_limits(user, *, opening: bool) -> None:
    """What one account can make the server hold in tables (docs/reliability.md): at most
    `MAX_UNFINISHED_TABLES_PER_ACCOUNT` tables it sits at that have not ended (each is rows,
    clocks the beat sweeps, and for tables with bots queued bot work), of which at most
    `MAX_OPEN_TABLES_PER_ACCOUNT` it opened and that still wait for players (the lobby). 0
    turns a cap off. Runs in the caller's transaction with the account's row locked, so
    requests racing for the last place are counted one after the other."""
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    unfinished_cap = settings.MAX_UNFINISHED_TABLES_PER_ACCOUNT
    unfinished = (Game.Status.OPEN, Game.Status.PLAYING)
    if unfinished_cap and (
        Seat.objects.filter(user=user, game__status__in=unfinished).count() >= unfinished_cap
    ):
        raise TooManyTables(limit=unfinished_cap, of="unfinished")
    open_cap = settings.MAX_OPEN_TABLES_PER_ACCOUNT
    if (
        opening
        and open_cap
        and (Game.objects.filter(created_by=user, status=Game.Status.OPEN).count() >= open_cap)
    ):
        raise TooManyTables(limit=open_cap, of="open")


def table_create(
    *,
    user,
    players: int,
    options=None,
    game: str = registry.DEFAULT,
    visibility: str = Game.Visibility.PUBLIC,
    clock: str = Clock.NONE,
    deadline1_at: datetime | None = None,
    deadline2_at: datetime | None = None,
    bots: list[str] | tuple[str, ...] = (),
    rated: bool = True,
) -> Game:
    """Open a table of `game` (a key of games/registry.py) with that game's `options` (its
    engine's `Options`; None: the defaults); its creator takes the first place at it, and
    computer opponents of the levels in `bots` the next ones (a table with a bot is never
    rated); the game starts at once when that fills the table."""
    kind = registry.get(game)
    engine = kind.engine
    if options is None:
        options = kind.default_options()
    kind.check_players(options, players)
    if len(bots) > players - 1:
        raise engine.InvalidSetup(
            engine.Code.INVALID_PLAYERS, f"a table of {players} has no place for {len(bots)} bots"
        )
    unknown = [level for level in bots if level not in kind.bot_levels]
    if unknown:
        raise InvalidBotLevel()
    if (deadline1_at or deadline2_at) and not kind.wall_clock_deadlines:
        raise InvalidDeadlines(_("This game has no wall-clock deadlines."))
    now = timezone.now()
    for name, when in (("deadline1_at", deadline1_at), ("deadline2_at", deadline2_at)):
        if when is not None and when <= now:
            raise InvalidDeadlines(_("%(name)s must be in the future.") % {"name": name})
    if deadline1_at and deadline2_at and deadline2_at < deadline1_at:
        raise InvalidDeadlines()
    with transaction.atomic():
        _table_limits(user, opening=1 + len(bots) < players)  # else it starts at once
        columns = {name: getattr(options, name) for name in kind.option_columns}
        game = Game.objects.create(
            created_by=user,
            kind=kind.key,
            players=players,
            **columns,
            game_options={} if kind.option_columns else options.to_json(),
            visibility=visibility,
            invite_code=secrets.token_urlsafe(12) if visibility == Game.Visibility.INVITE else "",
            clock=clock,
            turn_seconds=CLOCK_SECONDS[Clock(clock)],
            deadline1_at=deadline1_at,
            deadline2_at=deadline2_at,
            rated=rated and not bots,
        )
        Seat.objects.create(game=game, user=user, join_order=0)
        accounts = bot_accounts(len(bots))
        for join_order, (level, bot) in enumerate(zip(bots, accounts, strict=True), 1):
            Seat.objects.create(game=game, user=bot, join_order=join_order, bot_level=level)
        if 1 + len(bots) == players:
            _game_start(game)
        _announce_table(game.pk)
    return game


def locked_game(game_id: int) -> Game:
    """The game row, locked until the transaction ends (`GameNotFound` if none)."""
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise GameNotFound()
    return game


def _open_table(game: Game) -> None:
    if game.status != Game.Status.OPEN:
        raise TableNotOpen()


def table_join(*, game_id: int, user, invite_code: str = "") -> Game:
    """Take a place at an open table; the game starts when the last place is taken. A wrong
    invite code is answered as a missing table: private tables cannot be probed."""
    with transaction.atomic():
        game = locked_game(game_id)
        if game.visibility == Game.Visibility.INVITE and not secrets.compare_digest(
            invite_code or "", game.invite_code
        ):
            raise GameNotFound()
        _open_table(game)
        seated = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seated):
            raise AlreadySeated()
        _table_limits(user, opening=False)
        Seat.objects.create(game=game, user=user, join_order=len(seated))
        if len(seated) + 1 == game.players:
            _game_start(game)
        _announce_table(game.pk)
    return game


def table_leave(*, game_id: int, user) -> Game:
    """Leave an open table. When its creator leaves, the table is cancelled."""
    with transaction.atomic():
        game = locked_game(game_id)
        _open_table(game)
        seats = list(game.seats.all())
        mine = next((seat for seat in seats if seat.user_id == user.pk), None)
        if mine is None:
            raise NotSeated()
        _announce_table(game.pk)
        if game.created_by_id == user.pk:
            game.status = Game.Status.CANCELLED
            game.save(update_fields=["status"])
            return game
        mine.delete()
        for seat in seats:  # keep join orders 0..n-1: they are the engine's player indexes
            if seat.join_order > mine.join_order:
                Seat.objects.filter(pk=seat.pk).update(join_order=seat.join_order - 1)
    return game


def table_cancel(*, game_id: int, user) -> Game:
    with transaction.atomic():
        game = locked_game(game_id)
        if game.created_by_id != user.pk:
            raise NotCreator()
        _open_table(game)
        game.status = Game.Status.CANCELLED
        game.save(update_fields=["status"])
        _announce_table(game.pk)
    return game


def _game_start(game: Game) -> None:
    """Seed (S2, 128 secret bits), set up through the engine, assign seats (S3), log seq 0."""
    seed = secrets.randbits(128)
    kind = game.game_kind
    setup = kind.setup(options=game.options, players=game.players, seed=seed)
    started, notifications = kind.engine.start(setup)
    by_join_order = {seat.join_order: seat for seat in game.seats.all()}
    for seat_number, join_order in enumerate(started.seat_players):
        Seat.objects.filter(pk=by_join_order[join_order].pk).update(seat=seat_number)
    game.status = Game.Status.PLAYING
    game.rules_version = setup.rules_version
    game.seed = str(seed)
    game.seed_commitment = kind.engine.seed_commitment(seed)
    game.started_at = timezone.now()
    entries.game_begin(game, started, notifications)


def _announce_table(game_id: int) -> None:
    """Once committed, show the lobby the table as it now is."""

    def after_commit():
        game = Game.objects.filter(pk=game_id).prefetch_related("seats__user").first()
        if game is not None and game.visibility == Game.Visibility.PUBLIC:
            events.table_changed(table=selectors.game_summary(game))

    transaction.on_commit(after_commit)
