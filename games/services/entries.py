"""Appending to a game's log, and deciding what follows the entry: the one function every
write path that appends calls (moves, clocks, moderation, a bot's turn through moves, and the
start of a game), as Zulip's `do_*` actions or Saleor's `order/actions.py` do.

    row = entries.entry_append(loaded, repository.NewEntry(action, actor=user, seat=seat,
                                                           idempotency_key=key),
                               expected_version=version)    # or repository.VersionConflict
    entries.game_begin(game, started, notifications)         # seq 0, at the start of a game

The repository stores (`prepare` applies the action and makes the entry, `write` writes it in
one statement); this decides what goes with it:

* the answer: the entry's response (what the API answers, and what a retry under the same
  idempotency key gets again) is built between the two and written with the entry;
* the ratings: the entry that ends a rated game is written in one transaction with the ratings
  it moves (`ratings.game_ended`), so a rating is never lost nor moved twice (a retry's entry
  is refused by its key, and the ratings roll back with it); every other entry stays one
  statement, so a move is still one SELECT to load and one statement to append;
* the notices, once committed: the entry to the game's sockets and "your turn" to the
  player whose turn began (`games/events.py`: their sockets, e-mail), to players' devices
  (`games/push.py`), and a bot left on turn is queued to plan.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from django.db import router, transaction

from games import events, push, repository, selectors
from games.models import Game, GameEntry
from games.services import ratings


def entry_append(
    loaded: repository.Loaded,
    entry: repository.NewEntry,
    *,
    expected_version: int,
    recent: bool = False,
) -> GameEntry:
    """Apply `entry.action` to the loaded game and append it as seq `expected_version + 1`,
    with its answer, the ratings a game's end moves, and the notices after commit.
    `recent`: `loaded` is `repository.recent`'s, not read (`repository.write` guards it).

    Raises what the repository does: the engine's `EngineError` (nothing written),
    `VersionConflict` (another append came first), `IntegrityError` (a unique key refused the
    entry; the caller's transaction still usable)."""
    row = repository.prepare(loaded, entry, expected_version=expected_version)
    game, current = loaded.game, loaded.state
    public = selectors.public_view(game, current)  # the answer and the push
    row.response = selectors.entry_response(game, current, row, entry.seat, public)
    ending = current.over and not current.aborted
    with transaction.atomic(using=router.db_for_write(GameEntry)) if ending else nullcontext():
        repository.write(loaded, row, expected_version=expected_version, recent=recent)
        if ending:
            ratings.game_ended(game=game, seats=loaded.seats, final=current)
    _tell_on_commit(loaded, row.seq, row.notifications, public=public, by_seat=entry.seat)
    return row


def game_begin(game: Game, started: Any, notifications: list[dict]) -> None:
    """Log seq 0 of a game its caller has locked and set up, and tell the players once
    committed (the first seat's turn began)."""
    loaded = repository.begin(game, started, notifications)
    _tell_on_commit(loaded, 0, notifications)


def _tell_on_commit(
    loaded: repository.Loaded,
    seq: int,
    notifications: list[dict],
    *,
    public: dict | None = None,
    by_seat: int | None = None,
) -> None:
    """Once committed: push the entry, tell the player whose turn began, and have a bot left
    on turn by anything but its own move (its turn began; a deadline, a timeout or a moderator
    moved the version its task was made for) plan on the new state. All is taken now, as the
    state may be played on before the commit (a deadline, then a timeout). `by_seat`: the
    seat whose action the entry is (None: the server's)."""
    game, current = loaded.game, loaded.state
    message = events.entry_message(
        game_id=game.pk,
        commitment=game.seed_commitment,
        seq=seq,
        notifications=notifications,
        current=current,
        legal=selectors.turn_offers(game, current),
        clock=selectors.clock_of(game),
        public=public if public is not None else selectors.public_view(game, current),
    )
    active = message["active_seat"]
    starts = {"type": "turn_started", "seat": active}
    began = any(n.items() >= starts.items() for n in notifications)
    mover = next((s for s in loaded.seats if s.seat == active), None)
    turn_of = mover if began else None
    person = turn_of.user_id if turn_of is not None and not turn_of.bot else None
    email = turn_of is not None and turn_of.email_on_turn
    bot_plans = mover is not None and bool(mover.bot) and (began or by_seat != active)
    # whom to push to, as the seats were read with the game (their preferences, a device)
    push_turn = person if turn_of is not None and turn_of.push_your_turn else None
    ended = any(n.get("type") == "game_ended" for n in notifications)
    push_ended = sorted({s.user_id for s in loaded.seats if s.push_game_ended}) if ended else []

    def committed():
        events.entry_committed(
            game_id=game.pk, message=message, your_turn=person, email=email, bot=bot_plans
        )
        push.entry_committed(
            game_id=game.pk, version=seq, your_turn=push_turn, game_ended=push_ended
        )

    transaction.on_commit(committed)
