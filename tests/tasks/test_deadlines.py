"""Turn clocks (K1–K3) and wall-clock deadlines (D4) with frozen time: the sweep, the service
it calls, idempotency and the clock shown to clients."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta

import pytest
import time_machine
from django.db import connections, transaction
from django.utils import timezone

from games import repository, tasks
from games.models import Game, GameEntry
from games.services import clocks
from tests.players import Player, autopilot_choice, play_turn, seat_players, start_game

START = timezone.now().replace(microsecond=0) + timedelta(days=1)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def types(entry: GameEntry) -> list[str]:
    return [n["type"] for n in entry.notifications]


def last_entry(game_id: int) -> GameEntry:
    return GameEntry.objects.filter(game_id=game_id).order_by("-seq").first()


def test_K1_a_started_game_shows_when_the_turn_runs_out(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m")
    game = Game.objects.get(pk=game_id)
    assert game.turn_seconds == 60
    assert game.turn_deadline_at == START + timedelta(seconds=60) == game.next_deadline_at
    detail = players[0].get(f"/api/v1/games/{game_id}").json()
    assert detail["clock_state"]["turn_deadline_at"].startswith(
        (START + timedelta(seconds=60)).strftime("%Y-%m-%dT%H:%M:%S")
    )


def test_K1_no_clock_means_nothing_is_ever_due(make_player, clock):
    game_id = start_game([make_player(), make_player()])
    assert Game.objects.get(pk=game_id).next_deadline_at is None
    clock.shift(timedelta(days=30))
    assert clocks.deadlines_sweep() == 0


def test_K2_nothing_happens_before_the_limit_then_the_autopilot_plays_the_turn(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m")
    seat = Game.objects.get(pk=game_id).active_seat
    clock.shift(timedelta(seconds=59))
    assert tasks.sweep_deadlines() == 0
    clock.shift(timedelta(seconds=2))
    assert tasks.sweep_deadlines() == 1
    entry = last_entry(game_id)
    assert entry.seq == 1 and entry.action == {"type": "timeout", "seat": seat}
    assert entry.actor is None
    assert types(entry)[0] == "turn_timed_out" and "turn_ended" in types(entry)
    game = Game.objects.get(pk=game_id)
    assert game.active_seat == 1 - seat
    assert game.turn_deadline_at == START + timedelta(seconds=61 + 60)  # a fresh clock


def test_K2_a_late_or_duplicate_sweep_does_nothing(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m")
    clock.shift(timedelta(seconds=61))
    assert clocks.deadlines_sweep() == 1
    assert clocks.deadlines_sweep() == 0
    assert clocks.deadline_fire(game_id=game_id, version=0) == []  # the game moved on
    assert clocks.deadline_fire(game_id=game_id) == []  # nothing is due
    assert GameEntry.objects.filter(game_id=game_id).count() == 2


def test_K2_moves_keep_the_clock_of_a_turn_and_a_new_turn_restarts_it(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m", movement="fast")
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    clock.shift(timedelta(seconds=30))
    by_seat[game.active_seat].move(game_id, {"type": "step", **_first_step(game_id)}, 0)
    assert Game.objects.get(pk=game_id).turn_started_at == START  # same turn, same clock
    play_turn(game_id, by_seat)
    assert Game.objects.get(pk=game_id).turn_started_at == START + timedelta(seconds=30)


def _first_step(game_id):
    action = autopilot_choice(game_id)
    return {"to": action["to"]} if action["type"] == "step" else {}


def test_K3_three_timeouts_in_a_row_make_a_zombie_whose_turns_are_played_at_once(
    make_player, clock
):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="30s")
    by_seat = seat_players(game_id, players)
    absent = Game.objects.get(pk=game_id).active_seat
    for _ in range(3):
        clock.shift(timedelta(seconds=31))
        assert clocks.deadlines_sweep() == 1  # the absent player's turn
        if Game.objects.get(pk=game_id).status != "playing":
            break
        play_turn(game_id, by_seat)
    zombified = [
        n
        for e in GameEntry.objects.filter(game_id=game_id)
        for n in e.notifications
        if n["type"] == "seat_zombified"
    ]
    assert zombified == [{"type": "seat_zombified", "seat": absent, "reason": "timeouts"}]
    for _ in range(5):  # from now on the game never waits on the zombie
        game = Game.objects.get(pk=game_id)
        if game.status != "playing":
            break
        assert game.active_seat != absent
        play_turn(game_id, by_seat)


def test_D4_a_wall_clock_deadline_is_recorded_and_raises_the_allowance_under_fast(
    make_player, clock
):
    players = [make_player(), make_player()]
    game_id = start_game(
        players, movement="fast", deadline1_at=START + timedelta(hours=1),
        deadline2_at=START + timedelta(hours=2),
    )  # fmt: skip
    assert Game.objects.get(pk=game_id).next_deadline_at == START + timedelta(hours=1)
    clock.shift(timedelta(hours=1, seconds=1))
    assert clocks.deadlines_sweep() == 1
    entry = last_entry(game_id)
    assert entry.action == {"type": "deadline", "number": 1}
    assert entry.notifications == [{"type": "deadline_reached", "number": 1, "cause": "clock"}]
    view = players[0].get(f"/api/v1/games/{game_id}").json()["view"]
    assert view["allowance"] == 3 and view["deadlines_reached"] == 1
    game = Game.objects.get(pk=game_id)
    assert game.deadlines_reached == 1 and game.next_deadline_at == START + timedelta(hours=2)
    clock.shift(timedelta(hours=1))
    assert clocks.deadlines_sweep() == 1
    assert players[0].get(f"/api/v1/games/{game_id}").json()["view"]["allowance"] == 4
    assert Game.objects.get(pk=game_id).next_deadline_at is None


def test_D4_when_both_have_passed_the_second_reaches_the_first_in_one_entry(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(
        players, movement="faster", deadline1_at=START + timedelta(minutes=1),
        deadline2_at=START + timedelta(minutes=2),
    )  # fmt: skip
    clock.shift(timedelta(minutes=5))
    assert clocks.deadlines_sweep() == 1
    assert [n["number"] for n in last_entry(game_id).notifications] == [1, 2]


def test_D4_and_K2_due_together_are_both_applied(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(
        players, movement="fast", clock="1m", deadline1_at=START + timedelta(seconds=30)
    )
    clock.shift(timedelta(minutes=2))
    assert clocks.deadlines_sweep() == 1
    actions = [e.action["type"] for e in GameEntry.objects.filter(game_id=game_id, seq__gte=1)]
    assert actions == ["deadline", "timeout"]


def test_the_sweep_handles_every_due_game_once(make_player, clock):
    due = [start_game([make_player(), make_player()], clock="1m") for _ in range(5)]
    later = start_game([make_player(), make_player()], clock="1h")
    clock.shift(timedelta(minutes=2))
    assert clocks.deadlines_sweep() == 5
    for game_id in due:
        assert GameEntry.objects.filter(game_id=game_id).count() == 2
    assert GameEntry.objects.filter(game_id=later).count() == 1


def test_a_tick_fires_at_most_its_batch_the_earliest_first(make_player, clock, settings):
    due = []
    for _ in range(3):  # due a second apart, in this order
        due.append(start_game([make_player(), make_player()], clock="1m"))
        clock.shift(timedelta(seconds=1))
    clock.shift(timedelta(minutes=2))
    settings.DEADLINE_SWEEP_BATCH = 2
    assert tasks.sweep_deadlines() == 2
    assert [GameEntry.objects.filter(game_id=g).count() for g in due] == [2, 2, 1]
    assert tasks.sweep_deadlines() == 1
    assert [GameEntry.objects.filter(game_id=g).count() for g in due] == [2, 2, 2]
    assert tasks.sweep_deadlines() == 0


def test_each_claim_of_a_sweep_goes_on_from_the_last_ones_deadline(make_player, clock, monkeypatch):
    """Fired games leave their old index entries at the front of the index until a vacuum: a
    claim bounded by the last claimed deadline does not walk over them again."""
    due = []
    for _ in range(5):  # due a second apart, in this order
        due.append(start_game([make_player(), make_player()], clock="1m"))
        clock.shift(timedelta(seconds=1))
    deadlines = [Game.objects.get(pk=g).next_deadline_at for g in due]
    clock.shift(timedelta(minutes=2))
    claims, real_claim_due = [], repository.claim_due

    def claim_due(now, after=None, *, count=1):
        claimed = real_claim_due(now, after, count=count)
        claims.append((after, [c.game_id for c in claimed]))
        return claimed

    monkeypatch.setattr(repository, "claim_due", claim_due)
    assert clocks.deadlines_sweep(per_claim=2) == 5
    # batches of two, each claim from the last deadline; a claim that found fewer than it
    # asked for was the last: nothing else was due
    expected = [(None, due[:2]), (deadlines[1], due[2:4]), (deadlines[3], due[4:])]
    assert claims == expected
    assert [GameEntry.objects.filter(game_id=g).count() for g in due] == [2] * 5


@pytest.mark.postgres
def test_a_batch_appends_each_timeout_in_one_statement_without_a_savepoint(committed_db, clock):
    """A server entry has no idempotency key for a unique index to refuse, so a batch's
    transaction needs no savepoint around each append (committed_db: each batch is a
    transaction of its own, as in production, not a savepoint in the test's)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    due = [start_game([Player(), Player()], clock="1m") for _ in range(3)]
    clock.shift(timedelta(minutes=2))
    with CaptureQueriesContext(connection) as queries:
        assert clocks.deadlines_sweep() == 3
    sent = [q["sql"] for q in queries]
    assert not [sql for sql in sent if "SAVEPOINT" in sql], sent
    assert [GameEntry.objects.filter(game_id=g).count() for g in due] == [2] * 3


def test_a_batchs_timeouts_are_pushed_together_once_committed(committed_db, clock, monkeypatch):
    """Each timeout's entry reaches its game's group once the batch committed, all in one
    hand-off to the worker's loop rather than a round trip of its thread for each."""
    from games import events

    published: list[tuple[str, int]] = []
    tasks_seen: set = set()

    class Layer:
        async def group_send(self, group, message):
            tasks_seen.add(asyncio.current_task())
            published.append((group, message.get("seq", message.get("version"))))

    monkeypatch.setattr(events, "get_channel_layer", lambda: Layer())
    monkeypatch.setattr(events, "_own_loop", None)
    events.use_own_loop()  # as a Celery worker pushes (taxi_project/celery.py)
    due = [start_game([Player(), Player()], clock="1m") for _ in range(3)]
    published.clear()
    tasks_seen.clear()
    clock.shift(timedelta(minutes=2))
    assert clocks.deadlines_sweep() == 3
    assert [p for p in published if p[0].startswith("game-")] == [(f"game-{g}", 1) for g in due]
    assert len(tasks_seen) == 1


def test_a_claim_takes_no_game_due_before_its_bound_the_earliest_first(make_player, clock):
    first = start_game([make_player(), make_player()], clock="1m")
    clock.shift(timedelta(seconds=1))
    second = start_game([make_player(), make_player()], clock="1m")
    clock.shift(timedelta(seconds=1))
    third = start_game([make_player(), make_player()], clock="1m")
    bound = Game.objects.get(pk=second).next_deadline_at
    clock.shift(timedelta(minutes=2))
    with transaction.atomic():
        claimed = repository.claim_due(timezone.now(), count=2)
        assert [c.game_id for c in claimed] == [first, second]
        assert [c.version for c in claimed] == [0, 0]
    with transaction.atomic():
        claimed = repository.claim_due(timezone.now(), bound, count=5)
        assert [c.game_id for c in claimed] == [second, third]
        assert claimed[0].deadline == bound


@pytest.mark.postgres
def test_a_game_another_transaction_holds_is_left_for_the_next_tick(committed_db, clock):
    """A due game whose row someone else has locked (a player's move firing it, another
    worker) is skipped without waiting, the others fire, and the next sweep fires it."""
    held, *others = [start_game([Player(), Player()], clock="1m") for _ in range(3)]
    clock.shift(timedelta(minutes=2))
    locked, release = threading.Event(), threading.Event()

    def hold():
        try:
            with transaction.atomic():
                Game.objects.select_for_update().filter(pk=held).get()
                locked.set()
                release.wait(30)
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert locked.wait(30)
        assert clocks.deadlines_sweep() == 2
        assert [GameEntry.objects.filter(game_id=g).count() for g in (held, *others)] == [1, 2, 2]
    finally:
        release.set()
        holder.join()
    assert clocks.deadlines_sweep() == 1
    assert GameEntry.objects.filter(game_id=held).count() == 2


def test_finished_games_are_never_due(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m")
    by_seat = seat_players(game_id, players)
    by_seat[0].move(game_id, {"type": "resign"}, 0)
    by_seat[1].move(game_id, {"type": "resign"}, Game.objects.get(pk=game_id).version)
    game = Game.objects.get(pk=game_id)
    assert game.status == "finished" and game.next_deadline_at is None
    clock.shift(timedelta(hours=1))
    assert clocks.deadlines_sweep() == 0


@pytest.mark.parametrize("broken_at", [0, 2])  # first of its batch, or after two fired
def test_a_failing_game_is_retried_later_and_never_holds_up_the_others(
    make_player, clock, monkeypatch, caplog, broken_at
):
    others = [start_game([make_player(), make_player()], clock="1m") for _ in range(4)]
    broken = others.pop(broken_at)
    clock.shift(timedelta(minutes=2))
    real_fire = clocks.fire_due

    def fire(loaded):
        result = real_fire(loaded)  # its entries are written, then the failure undoes them
        if loaded.game.pk == broken:
            raise RuntimeError("a replay error")
        return result

    monkeypatch.setattr(clocks, "fire_due", fire)
    assert clocks.deadlines_sweep() == 4
    for game_id in others:
        assert [e.seq for e in GameEntry.objects.filter(game_id=game_id)] == [0, 1]
    assert GameEntry.objects.filter(game_id=broken).count() == 1  # nothing half-written
    game = Game.objects.get(pk=broken)
    assert (game.version, game.next_deadline_at) == (0, timezone.now() + clocks.DEADLINE_RETRY)
    assert f"deadline of game {broken} failed" in caplog.text
    assert clocks.deadlines_sweep() == 0  # not retried at once, so no tick spins on it

    monkeypatch.setattr(clocks, "fire_due", real_fire)  # mended
    clock.shift(clocks.DEADLINE_RETRY)
    assert clocks.deadlines_sweep() == 4  # the mended game, and the others' next 1-min turns
    assert [e.action["type"] for e in GameEntry.objects.filter(game_id=broken, seq__gte=1)] == [
        "timeout"
    ]


def test_a_game_whose_log_cannot_be_read_is_retried_later(make_player, clock, monkeypatch, caplog):
    unreadable, *others = [start_game([make_player(), make_player()], clock="1m") for _ in range(3)]
    clock.shift(timedelta(minutes=2))
    real_load = repository.load

    def load(game_id, **kwargs):
        if game_id == unreadable:
            raise ValueError("an entry no engine reads")
        return real_load(game_id, **kwargs)

    monkeypatch.setattr(repository, "load", load)
    assert clocks.deadlines_sweep() == 3
    assert [GameEntry.objects.filter(game_id=g).count() for g in (unreadable, *others)] == [1, 2, 2]
    assert f"deadline of game {unreadable} failed" in caplog.text
    game = Game.objects.get(pk=unreadable)
    assert game.next_deadline_at == timezone.now() + clocks.DEADLINE_RETRY


def test_K1_a_move_after_the_deadline_applies_the_timeout_first_without_any_sweep(
    make_player, clock
):
    """With no worker and no sweep, a move sent once the
    turn's time is up gets 409 `stale_version`: the timeout (K2, the autopilot's turn) is
    appended first, so the clock shown is the clock enforced."""
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m")
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    late, action = by_seat[game.active_seat], autopilot_choice(game_id)
    clock.shift(timedelta(seconds=61))
    answer = late.move(game_id, action, game.version)
    assert answer.status_code == 409 and answer.json()["code"] == "stale_version"
    moved = Game.objects.get(pk=game_id)
    assert answer.json()["current_version"] == moved.version > game.version
    timed_out = GameEntry.objects.get(game_id=game_id, seq=game.version + 1)
    assert timed_out.actor_id is None and timed_out.action["type"] == "timeout"
    assert "turn_timed_out" in types(timed_out)
    assert clocks.deadlines_sweep() == 0  # nothing left for the sweep


def test_D4_a_move_after_a_wall_clock_deadline_gets_the_deadline_first(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(
        players, movement="fast", deadline1_at=(START + timedelta(hours=1)).isoformat()
    )
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    clock.shift(timedelta(hours=2))
    answer = by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), game.version)
    assert answer.status_code == 409 and answer.json()["code"] == "stale_version"
    entry = GameEntry.objects.get(game_id=game_id, seq=game.version + 1)
    assert entry.action == {"type": "deadline", "number": 1}


def test_K1_a_move_in_time_is_not_held_up(make_player, clock):
    players = [make_player(), make_player()]
    game_id = start_game(players, clock="1m")
    by_seat = seat_players(game_id, players)
    game = Game.objects.get(pk=game_id)
    clock.shift(timedelta(seconds=59))
    answer = by_seat[game.active_seat].move(game_id, autopilot_choice(game_id), game.version)
    assert answer.status_code == 201, answer.json()
