"""A bot's turn is never left to the autopilot while a bot worker lives: every entry that
leaves a bot on turn queues its move again for the new version (a wall-clock deadline, D4; a
timeout; a resignation), a redelivered task plays on from its own entries, and the turn clock
(K2) waits for a living bot worker. The real worker and Redis: tests/bots/test_bot_redelivery.py."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from games import repository, tasks
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
    make_player,
):
    """The first delivery died after one step of its turn (acks late: the broker hands the
    task out again, for the version it was made for)."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy", movement="faster")
    first = bots.bot_action_play(game_id=game_id, version=version, seat=seat)
    assert first.seq == version + 1
    assert Game.objects.get(pk=game_id).active_seat == seat  # mid-turn: steps left
    again = bots.bot_action_play(game_id=game_id, version=version, seat=seat)
    assert again.seq == version + 2  # on from its own entry, not the same move twice
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) >= 1
    entries = _after(game_id, version)
    keys = [e.idempotency_key for e in entries]
    assert len(keys) == len(set(keys)) and all(e.seat == seat for e in entries)
    assert Game.objects.get(pk=game_id).active_seat != seat
    # and once more, after the turn: nothing
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) == 0
    assert len(_after(game_id, version)) == len(entries)


def test_a_task_plays_one_action_and_queues_the_next_at_once(
    make_player, queued, django_capture_on_commit_callbacks
):
    """A pool process is held for one action, not a whole turn: the rest of the turn is queued
    without a countdown once the action is committed."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy", movement="faster")
    with django_capture_on_commit_callbacks(execute=True):
        done = bots.bot_action_play(game_id=game_id, version=version, seat=seat)
    assert [e.seq for e in _after(game_id, version)] == [done.seq] == [version + 1]
    assert Game.objects.get(pk=game_id).active_seat == seat
    assert queued == [{"game_id": game_id, "version": version + 1, "seat": seat}]
    assert done.level == "easy" and set(done.steps) == {"load", "view", "choose", "wait", "submit"}
    assert all(wall >= 0 and cpu >= 0 for wall, cpu in done.steps.values())


def test_the_action_that_ends_the_bot_s_turn_queues_nothing(
    make_player, queued, django_capture_on_commit_callbacks
):
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy", movement="faster")
    while Game.objects.get(pk=game_id).active_seat == seat:
        step = Game.objects.get(pk=game_id).version
        queued.clear()
        with django_capture_on_commit_callbacks(execute=True):
            assert bots.bot_action_play(game_id=game_id, version=step, seat=seat).seq == step + 1
    assert queued == []  # its last action: the entry's own commit queues whoever comes next


def test_two_runs_of_one_step_append_it_once_and_queue_the_next_once(
    make_player, queued, monkeypatch, django_capture_on_commit_callbacks
):
    """A redelivered task and the action it had queued may run at once: the one whose entry
    it is queues what follows, the other finds its move already made under the same key."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy", movement="faster")
    late = repository.load(game_id)  # the second run read the game before the first appended
    with django_capture_on_commit_callbacks(execute=True):
        assert bots.bot_action_play(game_id=game_id, version=version, seat=seat).seq is not None
        monkeypatch.setattr(bots.repository, "load", lambda game_id: late)
        assert bots.bot_action_play(game_id=game_id, version=version, seat=seat).seq is None
    assert len(_after(game_id, version)) == 1
    assert len(queued) == 1


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


def test_the_bot_task_logs_when_it_began_and_each_step_s_time(make_player, queued, caplog):
    """One line per action (bench/bot_think.py cuts each turn's lateness with them)."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "medium", movement="faster")
    with caplog.at_level(logging.INFO, logger=tasks.BOT_TIMINGS_LOGGER):
        assert tasks.bot_play.apply(args=(game_id, version, seat)).get() == 1
        assert tasks.bot_play.apply(args=(game_id, version - 1, seat)).get() == 0
    played, stale = [
        json.loads(r.getMessage().removeprefix("bot action "))
        for r in caplog.records
        if r.name == tasks.BOT_TIMINGS_LOGGER
    ]
    assert played["game"] == game_id and played["seq"] == version + 1
    assert played["level"] == "medium" and played["eta"] is None  # run at once, no countdown
    assert set(played["steps"]) == {"load", "view", "choose", "wait", "submit"}
    assert played["started"] <= played["decided_at"] <= played["submit_at"] <= played["ended"]
    assert played["due"] <= played["submit_at"]
    assert stale["seq"] is None and set(stale["steps"]) == {"load"}
