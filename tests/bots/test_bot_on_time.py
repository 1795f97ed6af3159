"""A bot decides during its think time and moves when its move is due, never before: its task
is queued at once by the entry that began its turn, loads and decides, waits until
BOT_THINK_SECONDS after the turn began, then submits with the game it loaded; an entry of
anyone else meanwhile makes the submit stale and the bot plans again on that entry."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

import pytest
from django.utils import timezone

from games import events, tasks
from games.models import Game, GameEntry
from games.services import bots, clocks
from tests.bots.test_bot_turns import _after, _waiting_on_a_bot

THINK = 1.0  # seconds: long enough to decide in and to tell a wait from none


@pytest.fixture
def think(settings):
    settings.BOT_THINK_SECONDS = THINK
    return THINK


def _turn_began(game_id: int) -> float:
    return Game.objects.get(pk=game_id).turn_started_at.timestamp()


def test_the_bot_s_task_is_queued_at_once_when_its_turn_begins(
    make_player, monkeypatch, think, django_capture_on_commit_callbacks
):
    """No countdown, no ETA: the task starts deciding as soon as a pool process takes it."""
    sent = []

    class Recorded:
        def __init__(self, name):
            self.name = name

        def apply_async(self, args, **options):
            sent.append((self.name, tuple(args), options))

    monkeypatch.setattr(events, "signature", Recorded)
    with django_capture_on_commit_callbacks(execute=True):
        game_id, version, seat = _waiting_on_a_bot(make_player(), "medium", movement="faster")
    bot_tasks = [s for s in sent if s[0] == "games.tasks.bot_play"]
    assert bot_tasks[-1] == ("games.tasks.bot_play", (game_id, version, seat), {})


def test_a_bot_decides_before_its_move_is_due_and_never_moves_before_it(
    make_player, think, queued, caplog
):
    """Run at once, as the worker runs it: the decision ends within the think time, the
    entry's time is not before the turn's start + BOT_THINK_SECONDS."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "medium", movement="faster")
    began = _turn_began(game_id)
    with caplog.at_level(logging.INFO, logger=tasks.BOT_TIMINGS_LOGGER):
        assert tasks.bot_play.apply(args=(game_id, version, seat)).get() == 1
    (line,) = [r.getMessage() for r in caplog.records if r.name == tasks.BOT_TIMINGS_LOGGER]
    played = json.loads(line.removeprefix("bot action "))
    assert played["due"] == pytest.approx(began + THINK)
    assert played["decided_at"] < played["due"] <= played["submit_at"]
    (entry,) = _after(game_id, version)
    assert entry.seat == seat and entry.created_at.timestamp() >= began + THINK
    assert played["steps"]["wait"][0] > 0  # it waited, and used no CPU for it
    assert played["steps"]["wait"][1] < 0.5 * 1000 * THINK


def test_a_turn_s_later_actions_and_a_late_task_do_not_wait_again(make_player, think, queued):
    """The due time is the turn's: once it has passed, the bot's next actions (and a task
    that started late: a redelivery, `wake_bots`) move at once."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), "easy", movement="faster")
    first = bots.bot_action_play(game_id=game_id, version=version, seat=seat)
    assert first.seq == version + 1 and first.steps["wait"][0] >= 0.5 * 1000 * THINK
    assert Game.objects.get(pk=game_id).active_seat == seat  # mid-turn: steps left
    second = bots.bot_action_play(game_id=game_id, version=first.seq, seat=seat)
    assert second.seq == version + 2
    assert second.due == first.due and second.steps["wait"][0] < 0.5 * 1000 * THINK


def test_a_deadline_between_the_decision_and_the_submit_has_the_bot_plan_again(
    make_player, think, queued, monkeypatch, django_capture_on_commit_callbacks
):
    """The sweep appends a wall-clock deadline (D4) while the bot waits with its decision:
    its submit is stale and appends nothing; the deadline's commit queued the bot for the
    new version, which plans on it and still moves no earlier than the turn's due time."""
    soon = timezone.now() + timedelta(hours=1)
    game_id, version, seat = _waiting_on_a_bot(
        make_player(), "medium", movement="faster", deadline1_at=soon.isoformat()
    )
    began = _turn_began(game_id)
    waits = []

    def a_deadline_meanwhile(due: float) -> None:
        waits.append(due)
        if len(waits) == 1:
            past = timezone.now() - timedelta(seconds=1)
            Game.objects.filter(pk=game_id).update(deadline1_at=past, next_deadline_at=past)
            with django_capture_on_commit_callbacks(execute=True):
                assert clocks.deadlines_sweep() == 1
        waiting(due)

    waiting = bots.wait_until
    monkeypatch.setattr(bots, "wait_until", a_deadline_meanwhile)
    stale = bots.bot_action_play(game_id=game_id, version=version, seat=seat)
    assert stale.seq is None and stale.decided_at is not None  # it had decided
    (deadline,) = _after(game_id, version)
    assert deadline.seat is None
    assert "deadline_reached" in {note["type"] for note in deadline.notifications}
    assert not GameEntry.objects.filter(game_id=game_id, idempotency_key=f"bot-{version}-{seat}")
    assert queued == [{"game_id": game_id, "version": version + 1, "seat": seat}]
    again = bots.bot_action_play(game_id=game_id, version=version + 1, seat=seat)
    assert again.seq == version + 2 and waits == [began + THINK] * 2
    entry = _after(game_id, version + 1)[0]
    assert entry.seat == seat and entry.idempotency_key == f"bot-{version + 1}-{seat}"
    assert entry.created_at.timestamp() >= began + THINK
