"""A bot's turn is never left to the autopilot while a bot worker lives: every entry that
leaves a bot on turn queues its move again for the new version (a wall-clock deadline, D4; a
timeout; a resignation), a redelivered task plays on from its own entries, and the turn clock
(K2) waits for a living bot worker. The real worker and Redis: tests/bots/test_bot_redelivery.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from games.models import Game, GameEntry
from games.services import bot_workers, bots, clocks
from taxi_project import celery_app
from tests.bots.test_bot_seats import seat_players
from tests.players import play_turn


@pytest.fixture
def eager_tasks():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


@pytest.fixture
def no_bot_worker():
    cache.delete(bot_workers.KEY)
    yield
    cache.delete(bot_workers.KEY)


def _waiting_on_a_bot(player, level: str, **options) -> tuple[int, int, int]:
    """A game that now waits on its bot, whose task has not run (no commit hooks here)."""
    body = {"players": 2, "bots": [level], **options}
    game_id = player.post("/api/v1/tables", body).json()["id"]
    people = seat_players(game_id, [player])
    if Game.objects.get(pk=game_id).active_seat in people:
        play_turn(game_id, people)
    game = Game.objects.get(pk=game_id)
    assert game.active_seat not in people
    return game_id, game.version, game.active_seat


def _after(game_id: int, version: int) -> list[GameEntry]:
    return list(GameEntry.objects.filter(game_id=game_id, seq__gt=version).order_by("seq"))


def _types(entry: GameEntry) -> set[str]:
    return {note["type"] for note in entry.notifications}


def _the_bot_played_its_turn(game_id: int, after: int, seat: int) -> None:
    entries = _after(game_id, after)
    assert entries, "nothing was appended after the deadline: the bot was not queued again"
    assert all(e.seat == seat and e.idempotency_key.startswith("bot-") for e in entries)
    assert not any("turn_timed_out" in _types(e) for e in entries)
    assert any("turn_ended" in _types(e) for e in entries)
    assert Game.objects.get(pk=game_id).active_seat != seat or entries[-1].seq > after + 1


@pytest.mark.parametrize("movement", ["fast", "faster"])
@pytest.mark.parametrize("level", ["easy", "medium", "strong"])
def test_D4_a_deadline_swept_in_the_think_window_has_the_bot_plan_again(
    make_player, eager_tasks, django_capture_on_commit_callbacks, movement, level
):
    """The sweep appends the wall-clock deadline while the bot's task for the version before
    waits out its think time: that task gives up (the version moved), and the deadline's
    commit queues the bot for the new version, which plays the turn (no autopilot)."""
    soon = timezone.now() + timedelta(hours=1)
    game_id, version, seat = _waiting_on_a_bot(
        make_player(), level, movement=movement, deadline1_at=soon.isoformat()
    )
    past = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game_id).update(deadline1_at=past, next_deadline_at=past)
    with django_capture_on_commit_callbacks(execute=True):
        assert clocks.deadlines_sweep() == 1
    deadline = _after(game_id, version)[0]
    assert "deadline_reached" in _types(deadline) and deadline.seat is None
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) == 0  # the first task
    _the_bot_played_its_turn(game_id, version + 1, seat)


@pytest.mark.parametrize("movement", ["fast", "faster"])
def test_D4_a_deadline_the_bot_s_own_move_fires_has_the_bot_plan_again(
    make_player, eager_tasks, django_capture_on_commit_callbacks, movement
):
    """No sweep came by: the bot's own move applies the deadline first (lazy enforcement) and
    is refused as stale; the deadline's commit queues the bot again."""
    soon = timezone.now() + timedelta(hours=1)
    game_id, version, seat = _waiting_on_a_bot(
        make_player(), "medium", movement=movement, deadline1_at=soon.isoformat()
    )
    past = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game_id).update(deadline1_at=past, next_deadline_at=past)
    with django_capture_on_commit_callbacks(execute=True):
        assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) == 0
    assert "deadline_reached" in _types(_after(game_id, version)[0])
    _the_bot_played_its_turn(game_id, version + 1, seat)


def test_a_redelivered_task_plays_on_from_its_own_entries_and_appends_each_move_once(
    make_player, monkeypatch
):
    """The first delivery died after one step of its turn (acks late: the broker hands the
    task out again, for the version it was made for)."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy", movement="faster")
    monkeypatch.setattr(bots, "MAX_ACTIONS_PER_TASK", 1)
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) == 1
    assert Game.objects.get(pk=game_id).active_seat == seat  # mid-turn: steps left
    monkeypatch.setattr(bots, "MAX_ACTIONS_PER_TASK", 50)
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) >= 1
    entries = _after(game_id, version)
    keys = [e.idempotency_key for e in entries]
    assert len(keys) == len(set(keys)) and all(e.seat == seat for e in entries)
    assert Game.objects.get(pk=game_id).active_seat != seat
    # and once more, after the turn: nothing
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) == 0
    assert len(_after(game_id, version)) == len(entries)


def test_a_task_the_server_overtook_does_not_play_on(make_player, monkeypatch):
    """Entries of others after its version (a deadline): that entry queued the bot again."""
    soon = timezone.now() + timedelta(hours=1)
    game_id, version, seat = _waiting_on_a_bot(
        make_player(), "easy", movement="faster", deadline1_at=soon.isoformat()
    )
    past = timezone.now() - timedelta(seconds=1)
    Game.objects.filter(pk=game_id).update(deadline1_at=past, next_deadline_at=past)
    assert clocks.deadlines_sweep() == 1
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) == 0
    assert len(_after(game_id, version)) == 1


def _timed_out(game_id: int, seconds_ago: float) -> None:
    started = timezone.now() - timedelta(seconds=30 + seconds_ago)
    Game.objects.filter(pk=game_id).update(
        turn_started_at=started, next_deadline_at=started + timedelta(seconds=30)
    )


def test_K2_a_bot_s_turn_clock_waits_for_a_living_bot_worker(
    make_player, eager_tasks, django_capture_on_commit_callbacks, no_bot_worker
):
    game_id, version, seat = _waiting_on_a_bot(make_player(), "medium", clock="30s")
    _timed_out(game_id, 1)
    bot_workers.heartbeat("tests@here")
    assert bot_workers.alive()
    with django_capture_on_commit_callbacks(execute=True):
        clocks.deadlines_sweep()
    _the_bot_played_its_turn(game_id, version, seat)


def test_K2_the_autopilot_plays_a_bot_s_turn_when_no_bot_worker_lives(
    make_player, django_capture_on_commit_callbacks, no_bot_worker
):
    game_id, version, seat = _waiting_on_a_bot(make_player(), "medium", clock="30s")
    _timed_out(game_id, 1)
    assert not bot_workers.alive()
    clocks.deadlines_sweep()
    assert "turn_timed_out" in _types(_after(game_id, version)[0])


def test_K2_a_living_bot_worker_holds_the_clock_for_a_bounded_grace_only(
    make_player, settings, no_bot_worker
):
    game_id, version, seat = _waiting_on_a_bot(make_player(), "medium", clock="30s")
    bot_workers.heartbeat("tests@here")
    _timed_out(game_id, 1)
    clocks.deadlines_sweep()
    assert _after(game_id, version) == []  # waits for the bot, and looks again soon
    game = Game.objects.get(pk=game_id)
    assert game.next_deadline_at <= timezone.now() + timedelta(
        seconds=settings.BOT_LOST_AFTER_SECONDS
    )
    _timed_out(game_id, settings.BOT_TIMEOUT_GRACE_SECONDS + 1)
    clocks.deadlines_sweep()
    assert "turn_timed_out" in _types(_after(game_id, version)[0])


def test_a_lost_turn_is_woken_once_per_version(make_player):
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy")
    long_ago = timezone.now() - timedelta(minutes=5)
    Game.objects.filter(pk=game_id).update(turn_started_at=long_ago)
    quiet = timedelta(seconds=-1)  # every bot turn counts as quiet
    cache.delete(f"bot-woken:{game_id}:{version}")
    assert (game_id, version, seat) in bots.bot_turns_wake(older_than=quiet)
    assert (game_id, version, seat) not in bots.bot_turns_wake(older_than=quiet)
    assert (game_id, version, seat) not in bots.bot_turns_waiting(older_than=timedelta(hours=1))
