"""The write paths of games: tables (create, join, leave, cancel, start) and the log (moves).

Each service runs in one transaction that locks the game row it changes, but a move: it reads
without a lock and appends with one statement that checks the game is still at the version the
move was checked against (`move_submit`). Side effects (cache, push, deadlines) run with
`transaction.on_commit`, so nothing is announced that did not happen. Refusals are
`taxi_project.api_errors` classes with stable codes; engine refusals are
`games.engine.EngineError`s, mapped to HTTP by the same exception handler.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db import IntegrityError, connection, connections, router, transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from games import engine, events, selectors, state
from games.models import CLOCK_SECONDS, ChatMessage, Clock, Game, GameEntry, Seat
from games.selectors import entry_response, seed_as_text
from taxi_project import rows
from taxi_project.api_errors import ApiError, Conflict, Forbidden, NotFound, TooManyRequests

log = logging.getLogger(__name__)

# ---------------------------------------------------------------------------------- tables


def table_create(
    *,
    user,
    players: int,
    options: engine.Options,
    visibility: str = Game.Visibility.PUBLIC,
    clock: str = Clock.NONE,
    deadline1_at: datetime | None = None,
    deadline2_at: datetime | None = None,
) -> Game:
    """Open a table; its creator takes the first place at it."""
    engine.options.check_players(options, players)
    now = timezone.now()
    for name, when in (("deadline1_at", deadline1_at), ("deadline2_at", deadline2_at)):
        if when is not None and when <= now:
            raise ApiError(
                _("%(name)s must be in the future.") % {"name": name},
                code="invalid_deadlines",
            )
    if deadline1_at and deadline2_at and deadline2_at < deadline1_at:
        raise ApiError(_("The 2nd deadline cannot come before the 1st."), code="invalid_deadlines")
    with transaction.atomic():
        game = Game.objects.create(
            created_by=user,
            players=players,
            shift_change=options.shift_change,
            pickup_before_movement=options.pickup_before_movement,
            movement=options.movement,
            visibility=visibility,
            invite_code=secrets.token_urlsafe(12) if visibility == Game.Visibility.INVITE else "",
            clock=clock,
            turn_seconds=CLOCK_SECONDS[Clock(clock)],
            deadline1_at=deadline1_at,
            deadline2_at=deadline2_at,
        )
        Seat.objects.create(game=game, user=user, join_order=0)
        _announce_table(game.pk)
    return game


def _locked_game(game_id: int) -> Game:
    game = rows.get(Game, for_update=True, pk=game_id)  # select_for_update().get(), precompiled
    if game is None:
        raise NotFound(_("No such game."), code="game_not_found")
    return game


def _open_table(game: Game) -> None:
    if game.status != Game.Status.OPEN:
        raise Conflict(_("This table is no longer open."), code="table_not_open")


def table_join(*, game_id: int, user, invite_code: str = "") -> Game:
    """Take a place at an open table; the game starts when the last place is taken."""
    with transaction.atomic():
        game = _locked_game(game_id)
        if game.visibility == Game.Visibility.INVITE and not secrets.compare_digest(
            invite_code or "", game.invite_code
        ):
            raise Forbidden(_("This table is by invitation only."), code="invite_required")
        _open_table(game)
        seated = list(game.seats.all())
        if any(seat.user_id == user.pk for seat in seated):
            raise Conflict(_("You already sit at this table."), code="already_seated")
        Seat.objects.create(game=game, user=user, join_order=len(seated))
        if len(seated) + 1 == game.players:
            _game_start(game)
        _announce_table(game.pk)
    return game


def table_leave(*, game_id: int, user) -> Game:
    """Leave an open table. When its creator leaves, the table is cancelled."""
    with transaction.atomic():
        game = _locked_game(game_id)
        _open_table(game)
        seats = list(game.seats.all())
        mine = next((seat for seat in seats if seat.user_id == user.pk), None)
        if mine is None:
            raise Conflict(_("You do not sit at this table."), code="not_seated")
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
        game = _locked_game(game_id)
        if game.created_by_id != user.pk:
            raise Forbidden(_("Only the table's creator can cancel it."), code="not_creator")
        _open_table(game)
        game.status = Game.Status.CANCELLED
        game.save(update_fields=["status"])
        _announce_table(game.pk)
    return game


def _game_start(game: Game) -> None:
    """Seed (S2, 128 secret bits), set up through the engine, log seq 0, assign seats (S3)."""
    seed = secrets.randbits(128)
    setup = engine.Setup(options=game.options, players=game.players, seed=seed)
    started, notifications = engine.start(setup)
    by_join_order = {seat.join_order: seat for seat in game.seats.all()}
    for seat_number, join_order in enumerate(started.seat_players):
        Seat.objects.filter(pk=by_join_order[join_order].pk).update(seat=seat_number)
    game.status = Game.Status.PLAYING
    game.rules_version = setup.rules_version
    game.seed = str(seed)
    game.seed_commitment = engine.seed_commitment(seed)
    game.started_at = timezone.now()
    GameEntry.objects.create(game=game, seq=0, action=None, notifications=notifications)
    _summarise(game, started, version=0)
    game.save()
    _committed(game, 0, notifications, started)


SUMMARY_FIELDS = [
    "version", "active_seat", "status", "finished_at", "result", "turn_number",
    "turn_started_at", "deadlines_reached", "next_deadline_at",
]  # fmt: skip


def _summarise(game: Game, current: engine.Game, *, version: int) -> None:
    """The game row's summary of its log after `current`; a new turn restarts the clock."""
    now = timezone.now()
    game.version = version
    game.active_seat = current.current_player()
    if current.turn != game.turn_number or game.turn_started_at is None:
        game.turn_number = current.turn
        game.turn_started_at = now
    game.deadlines_reached = current.deadline
    if current.over:
        game.status = Game.Status.ABORTED if current.aborted else Game.Status.FINISHED
        game.finished_at = now
        game.result = current.result
    game.next_deadline_at = game.compute_next_deadline()


# ---------------------------------------------------------------------------------- moves


@dataclass(frozen=True)
class MoveResult:
    body: dict  # what the API answers: seq, version, notifications, view
    replayed: bool  # True: an earlier request with this idempotency key already made the move


def move_submit(
    *,
    game_id: int,
    user,
    action: dict,
    version: int,
    idempotency_key: str,
    read: MoveRead | None = None,
) -> MoveResult:
    """A player's action against the version they saw. Exactly once per idempotency key.

    Optimistic: the game row, its seats and the log's entries since this process's cached
    state are read in one statement, the action checked by the engine, and the entry
    appended by one statement that updates the game row only if it is still at `version`,
    and inserts the entry only then (`_append`, one atomic statement on PostgreSQL: the
    UPDATE locks the row, and a concurrent append committed first makes it match nothing).
    No lock is held while the engine works, and there is no BEGIN or COMMIT of its own. A
    retry is looked for only when the move cannot be new (stale version, refused by the
    engine, a version that moved on), and a reused key is caught by the unique constraint.

    `read`: the game's `move_read`, if the caller made it (with the token's: `MoveRead`)."""
    read = read if read is not None else move_read(game_id)
    game, seats, actions = read.game, read.seats, read.actions
    if game is None:
        raise NotFound(_("No such game."), code="game_not_found")
    mine = next((s for s in seats if s.user_id == user.pk), None)
    if mine is None:
        if game.visibility != Game.Visibility.PUBLIC and not user.is_staff:
            raise NotFound(_("No such game."), code="game_not_found")
        raise Forbidden(_("You do not play in this game."), code="not_a_player")
    seat = mine.seat
    try:
        if game.status == Game.Status.OPEN or game.status == Game.Status.CANCELLED:
            raise Conflict(_("The game has not started."), code="game_not_started")
        if version != game.version:
            raise _stale(game.version, version)
        decoded = _player_action(action, seat)
        current = state.state_for(game, caught_up=(read.after, actions))
        notifications = current.apply(decoded)  # EngineError: nothing is written
        try:
            entry = _append(
                game,
                current,
                decoded,
                notifications,
                actor=user,
                seat=seat,
                idempotency_key=idempotency_key,
                seats=seats,
            )
        except VersionMoved:  # another append committed since the row was read
            raise _stale(_version_now(game_id), version) from None
    except (ApiError, engine.EngineError):
        earlier = _earlier(game_id, user, idempotency_key, action, seat)
        if earlier is not None:
            return earlier
        raise
    except IntegrityError:  # the key was used before (the version check rules out a seq race)
        earlier = _earlier(game_id, user, idempotency_key, action, seat)
        if earlier is not None:
            return earlier
        raise Conflict(_("Another action was accepted first."), code="stale_version") from None
    return MoveResult(body=entry.response, replayed=False)


class VersionMoved(Exception):
    """The game row was no longer at the version an append was built on."""


def _stale(current: int, sent: int) -> Conflict:
    return Conflict(
        _("The game is at version %(current)s, not %(sent)s.") % {"current": current, "sent": sent},
        code="stale_version",
        current_version=current,
    )


def _version_now(game_id: int) -> int:
    return Game.objects.filter(pk=game_id).values_list("version", flat=True).get()


@dataclass(frozen=True)
class SeatInfo:
    seat: int | None
    user_id: int
    email_on_turn: bool  # and has an address


def _seats(game_id: int) -> list[SeatInfo]:
    """The game's seats (one query), with what "your turn" needs to know, for appends that did
    not read them with the row lock (timeouts, moderators' actions): written out rather than
    compiled each time from
    `Seat.objects.filter(game_id=…).values_list("seat", "user_id", "user__email_on_turn",
    "user__email")` (plain integers, booleans and text: nothing to convert)."""
    with connection.cursor() as cursor:
        cursor.execute(_SEATS_SQL, [game_id])
        return _seat_infos(cursor.fetchall())


def _seat_infos(found) -> list[SeatInfo]:
    """Rows of `_SEAT_COLUMNS` as SeatInfo."""
    return [SeatInfo(seat, user_id, bool(wants and email)) for seat, user_id, wants, email in found]


_SEAT_COLUMNS = "s.seat, s.user_id, u.email_on_turn, u.email"
_USERS = Seat._meta.get_field("user").related_model._meta.db_table
_SEATS_FROM = (
    f"FROM {Seat._meta.db_table} s INNER JOIN {_USERS} u ON u.id = s.user_id WHERE s.game_id = %s"
)
_SEATS_SQL = f"SELECT {_SEAT_COLUMNS} {_SEATS_FROM}"


@dataclass(frozen=True)
class MoveRead:
    """What a move reads before the engine checks it, in one statement (one snapshot, so the
    entries are exactly those up to the row's version): the game row (None: no such game),
    its seats (`_seats`), and the actions of its log's entries after seq `after`, the version
    of this process's cached state (for `state.state_for(caught_up=)`)."""

    after: int
    game: Game | None
    seats: list[SeatInfo]
    actions: list

    @classmethod
    def _of(cls, after: int, game: Game | None, found) -> MoveRead:
        seats, actions = found or (None, None)
        return cls(after, game, _seat_infos(json.loads(seats or "[]")), json.loads(actions or "[]"))


def move_read(game_id: int) -> MoveRead:
    after = state.cached_version(game_id) or 0
    connection = connections[router.db_for_read(Game)]
    game, found = rows.get_and(
        Game, name="game+seats+actions", columns=_move_columns(connection.vendor),
        params=[game_id, game_id, after], pk=game_id,
    )  # fmt: skip
    return MoveRead._of(after, game, found)


def token_and_move_read(token_model, key: str, game_id: int):
    """The token of `key` with its user (None if there is none), and the `move_read` of the
    game, in one statement (for a move's authentication: one round trip fewer per move)."""
    after = state.cached_version(game_id) or 0
    connection = connections[router.db_for_read(Game)]
    if rows.beyond(Game._meta.pk, game_id, connection):
        game_id = 0  # no row has such an id, and the driver could not send it: not found
    token, game, found = rows.get_with_row(
        token_model, "user", row_of=Game, row_pk=game_id, name="token+game+seats+actions",
        columns=_move_columns(connection.vendor), params=[game_id, game_id, after], key=key,
    )  # fmt: skip
    if token is None:
        return None, None
    return token, MoveRead._of(after, game, found)


def _move_columns(vendor: str) -> str:
    """`move_read`'s two JSON arrays, as text: seats, then actions in seq order."""
    entries = f"FROM {GameEntry._meta.db_table} e WHERE e.game_id = %s AND e.seq > %s"
    if vendor == "postgresql":
        return (
            f"(SELECT json_agg(json_build_array({_SEAT_COLUMNS}))::text {_SEATS_FROM}), "
            f"(SELECT json_agg(e.action ORDER BY e.seq)::text {entries})"
        )
    return (  # SQLite
        f"(SELECT json_group_array(json_array({_SEAT_COLUMNS})) {_SEATS_FROM}), "
        f"(SELECT json_group_array(json(a.action)) FROM (SELECT e.action {entries} "
        "ORDER BY e.seq) a)"
    )


def _earlier(game_id: int, user, key: str, action: dict, seat: int | None) -> MoveResult | None:
    """The answer to an earlier request with this idempotency key, if there was one."""
    earlier = GameEntry.objects.filter(game_id=game_id, actor=user, idempotency_key=key).first()
    if earlier is None:
        return None
    if seat is None or earlier.action != _with_seat(action, seat):
        raise Conflict(
            _("This idempotency key was used for another action."), code="idempotency_key_reused"
        )
    return MoveResult(body=earlier.response, replayed=True)


def _with_seat(action: dict, seat: int) -> dict:
    return {**action, "seat": seat} if isinstance(action, dict) and "seat" not in action else action


def _player_action(action: dict, seat: int) -> engine.Action:
    """The client's action, on behalf of its own seat: the seat may be left out."""
    if isinstance(action, dict) and action.get("type") in engine.SERVER_ACTIONS - {"resign"}:
        raise Forbidden(_("Only the server can take this action."), code="server_action")
    decoded = engine.decode_action(_with_seat(action, seat))
    if decoded.seat != seat:
        raise Forbidden(_("You can only act for your own seat."), code="not_your_seat")
    return decoded


def _append(
    game: Game,
    current: engine.Game,
    action: engine.Action,
    notifications: list[dict],
    *,
    actor=None,
    seat: int | None = None,
    idempotency_key: str | None = None,
    seats: list[SeatInfo] | None = None,
) -> GameEntry:
    """Append the entry for an action already applied to `current` (the state at
    `game.version`); update the summary. Only if the game row is still at that version:
    else `VersionMoved`, and nothing is written (callers that hold the row's lock never see
    it). The unique constraints stay the last line of defence: an IntegrityError, with
    nothing written (a caller's transaction stays usable)."""
    seen = game.version
    seq = seen + 1
    _summarise(game, current, version=seq)
    entry = GameEntry(
        game=game,
        seq=seq,
        actor=actor,
        seat=seat,
        action=engine.encode_action(action),
        notifications=notifications,
        idempotency_key=idempotency_key,
    )
    public = seed_as_text(engine.public_view(current))  # for the answer and the push
    entry.response = entry_response(game, current, entry, seat, public)
    # game.save(update_fields=…) if the version is still the one seen, then
    # entry.save(force_insert=True): precompiled, and one statement on PostgreSQL; neither
    # model has save() logic for these (GameEntry.save only refuses updates) nor signal
    # receivers, and nothing reads the entry's id
    if not rows.insert_if_updated(entry, game, SUMMARY_FIELDS, where={"version": seen}):
        raise VersionMoved(game.pk)
    _committed(game, seq, notifications, current, seats=seats, public=public)
    return entry


def _committed(
    game: Game,
    seq: int,
    notifications: list[dict],
    current: engine.Game,
    *,
    seats: list[SeatInfo] | None = None,
    public: dict | None = None,
) -> None:
    """Once the entry is committed: keep its state, push it to the sockets, and tell the
    player whose turn began. All is taken now, as `current` may be played on before the
    commit (a deadline and a timeout). `public`: its public view, if the caller has it."""
    snapshot = current.clone()
    push = events.entry_message(
        seq=seq,
        notifications=notifications,
        current=current,
        clock=selectors.clock_of(game),
        public=public if public is not None else seed_as_text(engine.public_view(current)),
    )
    active = push["active_seat"]
    starts = {"type": "turn_started", "seat": active}
    new_turn = active if any(n.items() >= starts.items() for n in notifications) else None

    def after_commit():
        state.remember(game, seq, snapshot)
        turn_of = None
        if new_turn is not None:
            known = seats if seats is not None else _seats(game.pk)
            turn_of = next((s for s in known if s.seat == new_turn), None)
        events.entry_committed(
            game_id=game.pk, message=push, your_turn=turn_of.user_id if turn_of else None
        )
        if turn_of is not None and turn_of.email_on_turn:
            _turn_email_schedule(user_id=turn_of.user_id, game_id=game.pk, version=seq)

    transaction.on_commit(after_commit)


def _turn_email_schedule(*, user_id: int, game_id: int, version: int) -> None:
    """A turn began for a user who asked for e-mails: queue one."""
    from games import tasks

    try:
        tasks.email_your_turn.delay(user_id, game_id, version)
    except Exception:  # the broker is down: the socket and the game list still tell them
        log.exception("could not queue the turn e-mail for game %s", game_id)


def turn_email_send(*, user_id: int, game_id: int, version: int) -> bool:
    """Send "your turn" if the game still waits on this user at `version`."""
    from django.conf import settings
    from django.core.mail import send_mail

    from accounts.middleware import user_language
    from accounts.models import User
    from games.wording import describe

    game = Game.objects.filter(pk=game_id, version=version, status=Game.Status.PLAYING).first()
    user = User.objects.filter(pk=user_id, email_on_turn=True).exclude(email="").first()
    if game is None or user is None:
        return False
    if not Seat.objects.filter(game=game, user=user, seat=game.active_seat).exists():
        return False
    deadline = game.turn_deadline_at
    last = GameEntry.objects.filter(game=game, seq=game.version).first()
    # In the reader's language: their profile's, else the site's (an e-mail has no browser).
    with translation.override(user_language(user) or settings.LANGUAGE_CODE):
        values = {"user": user, "game": game.pk}
        lines = [
            _("Hello %(user)s, game %(game)s of Bahama Taxi waits on your move.") % values,
            _("Play: %(url)s") % {"url": f"{settings.SITE_URL}/games/{game.pk}"},
        ]
        if deadline is not None:
            lines.append(
                _("Your time runs out at %(time)s UTC.") % {"time": f"{deadline:%Y-%m-%d %H:%M}"}
            )
        if last is not None and last.notifications:
            lines += ["", _("What happened last:")]
            lines += [f"- {describe(note)}" for note in last.notifications]
        subject = _("Your turn in game %(game)s") % values
    send_mail(subject, "\n".join(lines), None, [user.email])
    return True


def _announce_table(game_id: int) -> None:
    """Once committed, show the lobby the table as it now is."""

    def after_commit():
        game = Game.objects.filter(pk=game_id).prefetch_related("seats__user").first()
        if game is not None and game.visibility == Game.Visibility.PUBLIC:
            events.table_changed(table=selectors.game_summary(game))

    transaction.on_commit(after_commit)


# ---------------------------------------------------------------------------------- chat

CHAT_BURST = 5  # messages …
CHAT_WINDOW = timedelta(seconds=10)  # … per window, per player and table


def chat_post(*, game_id: int, user, text: str) -> ChatMessage:
    """A player's message to the table: 1–500 printable characters, at most 5 in 10 s."""
    text = text.strip() if isinstance(text, str) else ""
    if not 0 < len(text) <= ChatMessage.MAX_LENGTH or not text.isprintable():
        raise ApiError(
            _("A message is 1 to %(max)s printable characters.") % {"max": ChatMessage.MAX_LENGTH},
            code="invalid_chat_message",
        )
    with transaction.atomic():
        game = _locked_game(game_id)
        seat = Seat.objects.filter(game=game, user=user).first()
        if seat is None:
            raise Forbidden(
                _("Only the players at this table can write here."), code="not_a_player"
            )
        since = timezone.now() - CHAT_WINDOW
        recent = ChatMessage.objects.filter(game=game, author=user, created_at__gte=since)
        if recent.count() >= CHAT_BURST:
            raise TooManyRequests(
                _("Too many messages; wait a few seconds."), code="chat_rate_limited"
            )
        message = ChatMessage.objects.create(game=game, author=user, seat=seat.seat, text=text)
        public = selectors.chat_public(message)
        transaction.on_commit(lambda: events.chat_posted(game_id=game_id, message=public))
    return message


def chat_hide(*, message_id: int, moderator, reason: str = "") -> ChatMessage:
    """Hide a message for everyone (moderation); it stays stored."""
    with transaction.atomic():
        message = ChatMessage.objects.select_for_update().filter(pk=message_id).first()
        if message is None:
            raise NotFound(_("No such message."), code="message_not_found")
        if message.hidden_at is None:
            message.hidden_at = timezone.now()
            message.hidden_by = moderator
            message.hidden_reason = reason
            message.save(update_fields=["hidden_at", "hidden_by", "hidden_reason"])
            game_id = message.game_id
            transaction.on_commit(
                lambda: events.chat_hidden(game_id=game_id, message_id=message_id)
            )
    return message


# ---------------------------------------------------------------------------------- clocks


def deadline_fire(*, game_id: int, version: int | None = None) -> list[GameEntry]:
    """Append what the clock says is due: a table's wall-clock deadline (D4), then a timeout of
    the player to move, played by the autopilot (K2; the third in a row makes a zombie, K3).
    Idempotent: nothing happens if the game moved on from `version` or nothing is due."""
    with transaction.atomic():
        game = _locked_game(game_id)
        if version is not None and game.version != version:
            return []
        return _fire_locked(game)


def deadlines_sweep(*, limit: int = 1000) -> int:
    """Fire every due deadline, one game per transaction. Games are claimed with SKIP LOCKED,
    so several workers share the work and a game being moved is left for the next tick; a
    worker that dies mid-game rolls back and the game stays due. A game whose deadline fails
    (a bug, an unreadable log) is rolled back, logged and looked at again later, and never
    holds up the others. Returns games handled."""
    handled = 0
    skip_locked = connection.features.has_select_for_update_skip_locked
    while handled < limit:
        game = claimed = None
        try:
            with transaction.atomic():
                due = Game.objects.filter(
                    status=Game.Status.PLAYING, next_deadline_at__lte=timezone.now()
                ).order_by("next_deadline_at")
                game = due.select_for_update(skip_locked=skip_locked).first()
                if game is None:
                    break
                claimed = game.version  # _fire_locked moves the row on in memory
                _fire_locked(game)
        except Exception:
            if game is None:  # the claim itself failed: the database, not a game
                raise
            log.exception("deadline of game %s failed; next look in %s", game.pk, DEADLINE_RETRY)
            # only if no one moved it meanwhile (its lock went with the rollback)
            Game.objects.filter(pk=game.pk, version=claimed).update(
                next_deadline_at=timezone.now() + DEADLINE_RETRY
            )
        handled += 1
    return handled


DEADLINE_RETRY = timedelta(minutes=1)  # after a failed deadline, before the next attempt


def _fire_locked(game: Game) -> list[GameEntry]:
    if game.status != Game.Status.PLAYING:
        return []
    now = timezone.now()
    appended: list[GameEntry] = []
    current = None
    reached = [
        number
        for number, when in ((1, game.deadline1_at), (2, game.deadline2_at))
        if when is not None and when <= now and game.deadlines_reached < number
    ]
    if reached:
        current = state.state_for(game)
        action = engine.Deadline(max(reached))  # the 2nd reaches the 1st too (D4)
        if current.deadline < action.number:
            appended.append(_append(game, current, action, current.apply(action)))
    turn_deadline = game.turn_deadline_at
    if game.status == Game.Status.PLAYING and turn_deadline is not None and turn_deadline <= now:
        current = current or state.state_for(game)
        action = engine.Timeout(current.current_player())
        appended.append(_append(game, current, action, current.apply(action)))
    if not appended:  # a stale schedule: look again when something is really due
        game.deadlines_reached = max(game.deadlines_reached, max(reached, default=0))
        game.next_deadline_at = game.compute_next_deadline()
        game.save(update_fields=["deadlines_reached", "next_deadline_at"])
    return appended
