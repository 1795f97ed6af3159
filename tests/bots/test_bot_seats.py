"""Computer opponents at tables: seated at creation, playing through the same write
path as people (actor: a bot account; the same log, push and clocks), from the player's view
only (H1), on a Celery queue of their own."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from games import engine, repository, state
from games.bahama_taxi import kind as taxi_kind
from games.models import Game, GameEntry, PlayerRating, RatingChange
from games.services import bots
from taxi_project import celery_app
from tests.players import play_turn


@pytest.fixture
def eager_tasks():
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def _create(player, **body):
    return player.post("/api/v1/tables", {"movement": "faster", **body})


def test_a_table_with_bots_starts_at_once_and_is_never_rated(make_player):
    ana = make_player()
    created = _create(ana, players=3, bots=["easy", "strong"], rated=True)
    assert created.status_code == 201, created.json()
    table = created.json()
    assert table["status"] == "playing" and table["rated"] is False
    assert sorted(str(s["bot"]) for s in table["seats"]) == ["None", "easy", "strong"]
    bot_ids = [s["user"]["id"] for s in table["seats"] if s["bot"]]
    assert len(set(bot_ids)) == 2 and ana.user.pk not in bot_ids
    assert all("Computer" in s["user"]["display_name"] for s in table["seats"] if s["bot"])


def test_a_table_with_a_free_place_waits_for_a_person(make_player):
    ana, ben = make_player(), make_player()
    table = _create(ana, players=3, bots=["medium"]).json()
    assert table["status"] == "open"
    assert ben.post(f"/api/v1/tables/{table['id']}/join").status_code == 200
    assert Game.objects.get(pk=table["id"]).status == "playing"


def test_bots_cannot_take_every_place(make_player):
    answer = _create(make_player(), players=2, bots=["easy", "easy"])
    assert answer.status_code == 400 and answer.json()["code"] == "invalid"
    assert "bots" in str(answer.json())
    assert _create(make_player(), players=2, bots=["genius"]).status_code == 400


def test_bot_accounts_cannot_sign_in(db):
    for user in bots.bot_accounts(7):
        assert not user.is_active and not user.has_usable_password()
        assert user.username.startswith("bot:")


def seat_players(game_id: int, players) -> dict:
    """The people's seats (bots have seats too, without a Player)."""
    detail = players[0].get(f"/api/v1/games/{game_id}").json()
    by_id = {p.user.pk: p for p in players}
    return {s["seat"]: by_id[s["user"]["id"]] for s in detail["seats"] if not s["bot"]}


def _bot_game(player, levels, **body) -> int:
    return _create(player, players=1 + len(levels), bots=levels, **body).json()["id"]


def test_a_bot_table_is_played_to_the_end_through_the_api(
    make_player, eager_tasks, django_capture_on_commit_callbacks
):
    """The person plays over HTTP; each bot's turn is queued after the commit that began it
    and its task (eager here: a real worker runs it in tests/bots/test_bot_worker.py) appends
    through move_submit."""
    ana = make_player()
    with django_capture_on_commit_callbacks(execute=True):
        game_id = _bot_game(ana, ["easy", "medium"])
    by_seat = seat_players(game_id, [ana])
    for _ in range(500):
        game = Game.objects.get(pk=game_id)
        if game.status != "playing":
            break
        assert game.active_seat in by_seat  # bots never leave a turn waiting
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(game_id, by_seat)
    game = Game.objects.get(pk=game_id)
    assert game.status == "finished"
    bot_entries = GameEntry.objects.filter(game_id=game_id, actor__username__startswith="bot:")
    assert bot_entries.count() > 10
    keys = bot_entries.values_list("idempotency_key", flat=True)
    assert all(key.startswith("bot-") for key in keys)
    # bot tables are unrated: nobody's rating moved
    assert not RatingChange.objects.exists() and not PlayerRating.objects.exists()


def _waiting_on_a_bot(player, levels) -> tuple[int, int, int]:
    """A game that now waits on a bot (its tasks do not run: no commit hooks here)."""
    for _ in range(20):
        game_id = _bot_game(player, levels)
        game = Game.objects.get(pk=game_id)
        if game.active_seat not in seat_players(game_id, [player]):
            return game_id, game.version, game.active_seat
        play_turn(game_id, seat_players(game_id, [player]))
        game = Game.objects.get(pk=game_id)
        return game_id, game.version, game.active_seat
    raise AssertionError("no game waits on a bot")


def test_H1_the_bot_decides_from_its_seat_s_player_view_only(make_player, monkeypatch):
    """The task receives (game, version, seat); the decision function receives the seat's
    player view, which holds neither the pile order nor the seed."""
    seen = []
    real_choose = taxi_kind.choose  # what Bahama Taxi's registration decides with

    def recording_choose(view, seed, level, budget=None):
        seen.append((view, seed, level))
        return real_choose(view, seed, level, budget)

    monkeypatch.setattr(taxi_kind, "choose", recording_choose)
    game_id, version, seat = _waiting_on_a_bot(make_player(), ["strong"])
    expected = engine.player_view(state.state_for(Game.objects.get(pk=game_id)), seat)
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) >= 1
    view, seed, level = seen[0]
    assert view == expected and level == "strong"
    assert "secret" not in view and "seed" not in view and isinstance(view["pile"], int)
    assert seed == bots.bot_seed(game_id, version, seat)
    assert Game.objects.get(pk=game_id).active_seat != seat or len(seen) > 1


def test_the_bot_task_is_idempotent_on_the_version(make_player):
    game_id, version, seat = _waiting_on_a_bot(make_player(), ["medium"])
    assert bots.bot_turn_play(game_id=game_id, version=version, seat=seat) >= 1
    after = Game.objects.get(pk=game_id).version
    # the same task again once the turn is over (a redelivery), and one for a version the
    # game left behind
    assert bots.bot_action_play(game_id=game_id, version=version, seat=seat).seq is None
    assert Game.objects.get(pk=game_id).version == after


def test_a_bot_s_move_is_the_same_for_the_same_game_version_and_seat(make_player):
    """The seed comes from (game, version, seat): the decision replays."""
    game_id, version, seat = _waiting_on_a_bot(make_player(), ["strong"])
    loaded = repository.load(game_id)
    view = engine.player_view(loaded.state, seat)
    seed = bots.bot_seed(game_id, version, seat)
    assert taxi_kind.KIND.choose(view, seed, "strong") == taxi_kind.KIND.choose(
        view, seed, "strong"
    )
    assert bots.bot_seed(game_id, version, seat) != bots.bot_seed(game_id, version + 1, seat)


def test_bots_play_on_a_queue_of_their_own(db):
    """A busy bot never delays the deadline sweep: different queues."""
    router = celery_app.amqp.router
    bot_queue = router.route({}, "games.tasks.bot_play")["queue"].name
    sweep_queue = router.route({}, "games.tasks.sweep_deadlines")["queue"].name
    assert bot_queue == django_settings.CELERY_BOT_QUEUE != sweep_queue
    assert {q.name for q in celery_app.conf.task_queues} == {bot_queue, sweep_queue}


def test_a_lost_bot_turn_is_found_by_wake_bots(make_player):
    game_id, version, seat = _waiting_on_a_bot(make_player(), ["easy"])
    from datetime import timedelta

    assert (game_id, version, seat) in bots.bot_turns_waiting(older_than=timedelta(seconds=-60))
    assert (game_id, version, seat) not in bots.bot_turns_waiting(older_than=timedelta(hours=1))
